// The host context the page controls: theme and styles, locale.

import { defect, variation } from "./config";
import { el, themeBtn, localeSelect, log } from "./layout";
import { views } from "./view";

type Theme = "light" | "dark";
export let theme: Theme = variation("theme-dark-initially") ? "dark" : "light";
if (theme === "dark") {
  document.body.className = "theme-dark";
  themeBtn.textContent = "Light mode";
}
// The user's language and region (hostContext.locale); the header's locale
// control changes it.
const LOCALES: [string, string][] = [
  ["en-US", "English (US)"],
  ["fr-FR", "Français (France)"],
  ["de-DE", "Deutsch (Deutschland)"],
  ["ja-JP", "日本語 (日本)"],
];
export let locale = variation("locale-non-english") ? "ja-JP" : navigator.language || "en-US";

const palette: Record<Theme, Record<string, string>> = {
  light: { "--color-background-primary": "#ffffff", "--color-text-primary": "#111827", "--color-border-primary": "#e5e7eb" },
  dark: { "--color-background-primary": "#111827", "--color-text-primary": "#f9fafb", "--color-border-primary": "#374151" },
};
export function styles(): Record<string, unknown> {
  return { variables: { ...palette[theme], "--font-sans": "system-ui, sans-serif", "--border-radius-md": "8px" } };
}
function setTheme(t: Theme): void {
  if (t === theme) return;
  theme = t;
  document.body.className = `theme-${t}`;
  themeBtn.textContent = t === "dark" ? "Light mode" : "Dark mode";
  if (defect("no-context-changed-on-theme") || variation("no-context-changed-on-theme")) return;
  for (const v of views) v.contextChanged({ theme, styles: styles() });
}
themeBtn.addEventListener("click", () => setTheme(theme === "light" ? "dark" : "light"));

// ---------------------------------------------------------------- locale
// A changed locale reaches every initialized View as a partial
// host-context-changed; Views initialized later get it in hostContext.
function localeLabel(tag: string): string {
  try {
    return new Intl.DisplayNames([tag], { type: "language" }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}
const localeOptions = LOCALES.some(([tag]) => tag === locale) ? LOCALES : [[locale, localeLabel(locale)] as [string, string], ...LOCALES];
localeSelect.append(...localeOptions.map(([tag, label]) => el("option", { value: tag }, label)));
localeSelect.value = locale;
document.documentElement.lang = locale;

function setLocale(tag: string): void {
  if (tag === locale) return;
  locale = tag;
  document.documentElement.lang = tag;
  log("host", `locale changed to ${tag}`);
  for (const v of views) v.contextChanged({ locale });
}
localeSelect.addEventListener("change", () => setLocale(localeSelect.value));
