// ui/download-file (draft): the file name is the last segment of the URI,
// sanitised so that no path can be smuggled in (draft §ui/download-file).

import { defect, variation } from "./config";
import { el } from "./layout";

function sanitizeFilename(name: string): string {
  let n = name.replace(/[\u0000-\u001f\u007f]/g, "");
  n = n.split(/[\\/]/).pop() ?? "";
  n = n.replace(/[<>:"|?*]/g, "_").replace(/^[.\s]+/, "").trim();
  if (!n || n === "." || n === "..") n = "download";
  return n.slice(0, 200);
}

function filenameFromURI(uri: string): string {
  let path = uri;
  try {
    path = new URL(uri).pathname;
  } catch {
    // not a URL: use it as it is
  }
  let last = path.slice(path.lastIndexOf("/") + 1);
  try {
    last = decodeURIComponent(last);
  } catch {
    // keep it encoded
  }
  if (defect("download-filename-wrong")) return "download";
  if (defect("download-filename-unsanitised") || defect("download-traversal-refused-but-saved")) return last;
  // Sanitised the other common way: every separator (and control
  // character) becomes "_", the dots stay; the name cannot traverse.
  if (variation("download-filename-underscored")) return last.replace(/[\u0000-\u001f\u007f\\/]/g, "_") || "download";
  return sanitizeFilename(last);
}

export interface DownloadItem {
  name: string;
  blob?: Blob;
  url?: string;
}

export function downloadItem(it: any): DownloadItem | string {
  if (it?.type === "resource" && it.resource && typeof it.resource.uri === "string") {
    const r = it.resource;
    const type = typeof r.mimeType === "string" ? r.mimeType : "application/octet-stream";
    if (typeof r.text === "string") return { name: filenameFromURI(r.uri), blob: new Blob([r.text], { type }) };
    if (typeof r.blob === "string") {
      try {
        const bin = atob(r.blob);
        const bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        return { name: filenameFromURI(r.uri), blob: new Blob([bytes], { type }) };
      } catch {
        return "Invalid content: resource.blob is not base64";
      }
    }
    return "Invalid content: an embedded resource needs text or blob";
  }
  if (it?.type === "resource_link" && typeof it.uri === "string") {
    let url: URL;
    try {
      url = new URL(it.uri);
    } catch {
      return "Invalid content: resource_link uri is not a URL";
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return "Invalid content: only http(s) links are fetched";
    return { name: filenameFromURI(it.uri), url: url.href };
  }
  return "Invalid content: contents[] items must be resource or resource_link";
}

export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name, style: "display:none" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
