// withMetaCSP puts policy into html as a <meta http-equiv> first in its
// <head> (or first in the document): how the reference host delivers a
// View's CSP where no proxy response header carries it (the csp-meta
// variation, the no-sandbox-proxy defect). No policy: html unchanged.
export function withMetaCSP(html: string, policy: string | undefined): string {
  if (!policy) return html;
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head) return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length);
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  if (doctype) return doctype[0] + meta + html.slice(doctype[0].length);
  return meta + html;
}
