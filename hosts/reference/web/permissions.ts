// _meta.ui.permissions → Permission Policy features for the iframes' allow
// attribute (S L484: the Sandbox MAY set it). The host grants only what
// the resource asked for, unless the permissions-granted-unrequested
// variation grants every feature (the spec forbids undeclared domains, S
// L286, not extra permissions).

import { defect, variation } from "./config";

const PERMISSION_FEATURES: Record<string, string> = {
  camera: "camera",
  microphone: "microphone",
  geolocation: "geolocation",
  clipboardWrite: "clipboard-write",
};

export function grantedPermissions(requested: unknown): Record<string, object> {
  if (defect("permissions-ignored") || variation("no-permissions-allow")) return {};
  const keys = variation("permissions-granted-unrequested")
    ? Object.keys(PERMISSION_FEATURES)
    : Object.keys(requested && typeof requested === "object" ? requested : {}).filter((k) => k in PERMISSION_FEATURES);
  return Object.fromEntries(keys.map((k) => [k, {}]));
}

export function allowAttribute(granted: Record<string, object>): string {
  return Object.keys(granted)
    .map((k) => PERMISSION_FEATURES[k])
    .join("; ");
}
