// Preloaded into the mcp-use Inspector (node --import): its CLI listens on
// every interface (server.listen(port) with no host); this makes every
// listen without a host bind to 127.0.0.1 instead, so the Inspector is
// reachable from this machine only.
import net from "node:net";
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...a) {
  if (typeof a[0] === "number" || (typeof a[0] === "string" && /^\d+$/.test(a[0]))) {
    if (typeof a[1] !== "string") a.splice(1, a.length > 1 && a[1] === undefined ? 1 : 0, "127.0.0.1");
  } else if (a[0] && typeof a[0] === "object" && a[0].path === undefined && a[0].fd === undefined && !a[0].host && !a[0]._handle) {
    a[0] = { ...a[0], host: "127.0.0.1" };
  }
  return listen.apply(this, a);
};
