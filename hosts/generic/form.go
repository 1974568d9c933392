// The fill-form step: a JSON object set into a form with one field per
// argument (development hosts render a tool's input schema that way).

package generic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/browserhost"
)

// formField is one member of the object fill-form sets, in the object's
// order.
type formField struct {
	key string
	raw json.RawMessage
}

// formFields reads the JSON object s member by member, keeping its order
// (a form may show a field only once an earlier one is set).
func formFields(s string) ([]formField, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %q", clip(s, 80))
	}
	var out []formField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, formField{key: t.(string), raw: raw})
	}
	return out, nil
}

// formSummary describes what fill-form sets with vars filled in: the
// names of the fields, or the placeholder still to be filled.
func formSummary(text string, vars map[string]string) string {
	fields, err := formFields(expand(text, vars))
	if err != nil {
		return text
	}
	if len(fields) == 0 {
		return "no fields"
	}
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	return "fields " + strings.Join(keys, ", ")
}

// formExample is what --check shows of a fill-form step with example
// values: each field's selector and the value set there.
func formExample(target, text string, vars map[string]string) string {
	fields, err := formFields(expand(text, vars))
	if err != nil {
		return expand(text, vars)
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = fmt.Sprintf("%s=%s", expand(target, map[string]string{PhKey: f.key}), fieldText(f.raw))
	}
	return strings.Join(parts, "; ")
}

// fillForm sets each field of the JSON object obj in the element the
// selector template names with {key} replaced by the field's name: a
// checkbox or radio button is checked or unchecked (the value must be a
// boolean), a <select> chooses the option, anything else gets the value
// typed in (a string as is, another value as JSON). The form may re-render
// right after a field is set (seen on the mcp-use Inspector: an emptied
// field, a call made without the argument), so the values are read back
// and set again until they stay.
func (h *Host) fillForm(page playwright.Page, template, obj string) error {
	fields, err := formFields(obj)
	if err != nil {
		return fmt.Errorf("fill-form needs a JSON object after =: %v", err)
	}
	ms := float64(h.cfg.stepTimeout.Milliseconds())
	for attempt := 1; ; attempt++ {
		for _, f := range fields {
			if err := setField(page, expand(template, map[string]string{PhKey: f.key}), f, ms, h.cfg.stepTimeout); err != nil {
				return err
			}
		}
		// The form's re-render after the last field, if it makes one.
		if err := browserhost.Rendered(page); err != nil {
			return fmt.Errorf("fill-form: waiting for the page to render: %w", err)
		}
		bad := ""
		for _, f := range fields {
			if !fieldHolds(page.Locator(expand(template, map[string]string{PhKey: f.key})).First(), f.raw) {
				bad = f.key
				break
			}
		}
		if bad == "" {
			return nil
		}
		if attempt == 3 {
			return fmt.Errorf("the field of argument %q does not keep its value: set %d times, the form cleared or changed it each time", bad, attempt)
		}
	}
}

// fieldKind is "checkbox", "radio", "select" or "text".
const fieldKindJS = `el => el instanceof HTMLSelectElement ? "select" : (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) ? el.type : "text"`

// setField sets one field; sel is its selector.
func setField(page playwright.Page, sel string, f formField, ms float64, timeout time.Duration) error {
	loc := page.Locator(sel).First()
	if err := loc.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached, Timeout: &ms}); err != nil {
		return fmt.Errorf("argument %q: no element matches the selector %q within %s", f.key, sel, timeout)
	}
	kind, err := loc.Evaluate(fieldKindJS, nil)
	if err != nil {
		return fmt.Errorf("argument %q: reading the field %q: %s", f.key, sel, browserhost.FirstLine(err))
	}
	switch kind {
	case "checkbox", "radio":
		on, ok := boolValue(f.raw)
		if !ok {
			return fmt.Errorf("argument %q is %s, not a boolean, but its field %q is a %s", f.key, f.raw, sel, kind)
		}
		err = loc.SetChecked(on, playwright.LocatorSetCheckedOptions{Timeout: &ms})
	case "select":
		_, err = loc.SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &[]string{fieldText(f.raw)}}, playwright.LocatorSelectOptionOptions{Timeout: &ms})
	default:
		err = loc.Fill(fieldText(f.raw), playwright.LocatorFillOptions{Timeout: &ms})
	}
	if err != nil {
		return fmt.Errorf("argument %q: setting the field %q did not complete within %s: %s", f.key, sel, timeout, browserhost.FirstLine(err))
	}
	return nil
}

// fieldHolds reports whether the field shows the value f sets.
func fieldHolds(loc playwright.Locator, raw json.RawMessage) bool {
	kind, err := loc.Evaluate(fieldKindJS, nil)
	if err != nil {
		return false
	}
	if kind == "checkbox" || kind == "radio" {
		on, _ := boolValue(raw)
		checked, err := loc.IsChecked()
		return err == nil && checked == on
	}
	v, err := loc.InputValue()
	return err == nil && v == fieldText(raw)
}

// boolValue reads a JSON boolean (or null, unchecked; or the strings
// "true" and "false").
func boolValue(raw json.RawMessage) (bool, bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true", `"true"`:
		return true, true
	case "false", `"false"`, "null", "":
		return false, true
	}
	return false, false
}
