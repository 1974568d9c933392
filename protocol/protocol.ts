// The one contract between the conformance suite (in the app iframe) and the
// Go runner. Its Go twin is protocol.go in this folder; protocol_test.go fails
// when the two disagree, so change both together.

export const PROTOCOL_VERSION = "1";
export const CHANNEL = "__mcpConformance";

export const KINDS = [
  "clickTrigger",
  "confirmDialog",
  "checkLinkOpen",
  "conversationContains",
  "toggleTheme",
  "readModelToolList",
  "inspectFrame",
  "readConsole",
  "resetIsolation",
  "cancelTool",
  "closeView",
  "checkDownload",
  "openTool",
  "readFrameMessages",
  "observePrompts",
  "readNewSessionToolList",
  "hasAgent",
  "keepsViews",
  "messageRole",
] as const;
export type Kind = (typeof KINDS)[number];

export const DIALOGS = ["open-link", "download", "sampling"] as const;
export type Dialog = (typeof DIALOGS)[number];

// One variant per thing a host can physically do. The test carries the
// meaning; a request only names an action.
export type CapabilityRequest =
  | { kind: "clickTrigger"; commitDraftedMessage?: boolean }
  | { kind: "confirmDialog"; dialog: Dialog }
  | { kind: "checkLinkOpen"; url: string }
  | { kind: "conversationContains"; marker: string; timeoutMs: number }
  | { kind: "toggleTheme"; to: "light" | "dark" }
  | { kind: "readModelToolList" }
  | { kind: "inspectFrame" }
  | { kind: "readConsole"; pattern: string; timeoutMs: number }
  | { kind: "resetIsolation" }
  // Press the host's Stop control for the running tool call whose View
  // displays the marker.
  | { kind: "cancelTool"; marker: string }
  // Close, as a user would, the View that displays the marker.
  | { kind: "closeView"; marker: string }
  // Report the next file the browser downloaded: {filename, content,
  // requested?} (requested: the name the page asked for, when seen).
  // With a marker: the newest file whose name contains it, whenever it
  // came (already reported, or forgotten by resetIsolation).
  | { kind: "checkDownload"; timeoutMs: number; marker?: string }
  // Make the host call the tool with these arguments and show that call's
  // View (same page or another), as a user of its tool list or a deep link
  // would: no agent involved.
  | { kind: "openTool"; tool: string; arguments: Record<string, unknown> }
  // Report the window messages the frames around the View received: the
  // host's frame, the sandbox proxy's and the View's (FrameMessages in
  // hosts/browserhost/framemessages.go).
  | { kind: "readFrameMessages" }
  // Watch the host page for prompts put before the user: "mark" remembers
  // what it shows now, "report" answers what appeared since
  // ({seen: string[], screenshot?: string}; PromptReport in protocol.go).
  | { kind: "observePrompts"; phase: "mark" | "report" }
  // Report the model's tool list (string[]) in a new session of the host:
  // a new conversation beside the one the suite's View is in, which goes on.
  | { kind: "readNewSessionToolList" }
  // Whether the host has an agent that answers the conversation (a JSON
  // boolean), as its driver knows; unsupported where it cannot tell.
  | { kind: "hasAgent" }
  // Whether probe Views may be opened side by side (a JSON boolean): the
  // driver opens a tool's View itself (openTool) and the host keeps every
  // View open beside the ones opened after it, until it is closed.
  | { kind: "keepsViews" }
  // Whose message the conversation shows the text containing the marker
  // as (a JSON string): "user" for the user's own, otherwise what the
  // driver can tell ("assistant", "other"); waits up to timeoutMs for it.
  | { kind: "messageRole"; marker: string; timeoutMs: number };

// A parked request carries a sequence number so the runner dispatches it once.
export type ParkedRequest = CapabilityRequest & { seq: number };

export interface CapabilityResult {
  ok: boolean;
  value?: unknown;
  error?: string;
  unsupported?: boolean;
}

// OPTIONAL ends a MAY check that observed the optional feature absent
// ("optional, not implemented"): never a failure. BLOCKED ends a check that
// could not reach what it tests because a behaviour another check judges is
// missing (wptrunner's PRECONDITION_FAILED); blockedBy names that check.
export const STATUSES = ["PASS", "FAIL", "TIMEOUT", "SKIP", "NOTRUN", "ERROR", "OPTIONAL", "BLOCKED"] as const;
export type Status = (typeof STATUSES)[number];

export const CLAUSES = ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "INFO"] as const;
export type Clause = (typeof CLAUSES)[number];

export const EDITIONS = ["2026-01-26", "draft"] as const;
export type Edition = (typeof EDITIONS)[number];

export const VANTAGES = ["in-view", "host", "server"] as const;
export type Vantage = (typeof VANTAGES)[number];

export interface TestMeta {
  id: string; // area/slug
  name: string;
  clause: Clause;
  edition: Edition;
  specRef: string;
  // The requirement ids (internal/specreg) the test judges.
  requirements: string[];
  manual: boolean;
  vantage: Vantage;
  needs: Kind[];
  gesture: boolean;
  // The checks whose behaviour this one depends on.
  requires?: string[];
}

export interface TestResult {
  id: string;
  status: Status;
  message?: string;
  durationMs: number;
  value?: unknown;
  // With status BLOCKED: the checks that judge the missing behaviour.
  blockedBy?: string[];
  messages?: unknown[];
}

export interface SuiteList {
  protocolVersion: string;
  suiteVersion: string;
  tests: TestMeta[];
}

export type State = "idle" | "running" | "done";

export interface Poll {
  instance: string;
  state: State;
  runningId?: string;
  request?: ParkedRequest | null;
  results: TestResult[];
  hostInfo?: unknown;
  hostCapabilities?: unknown;
  hostContext?: unknown;
}

// What the runner needs to deliver a real click to the trigger button without
// evaluating anything with a user gesture in the app frame: where the button
// is (in the app frame's viewport), whether the pointer has reached it, and
// the frame's user-activation state for proofs.
export interface TriggerInfo {
  armed: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
  hovered: boolean;
  // Pointer moves the button has seen: the runner aims only once one came
  // after its own move away (hovered alone can be stale).
  moves?: number;
  clicks: number;
  lastClickTrusted: boolean;
  hasBeenActive: boolean;
  isActive: boolean;
}

// What resolveAndPoll() answers: whether the result was taken (false when
// the test stopped waiting for it) and the next change, as poll() returns it.
export interface ResolvedPoll {
  accepted: boolean;
  poll: Poll;
}

// The channel the suite installs on window[CHANNEL]. poll() is a long-poll:
// it settles as soon as something changes (a request is parked, a test
// finishes) or after waitMs at most, so the runner reacts in about one
// evaluate rather than a fixed interval. resolveAndPoll() answers a request
// and long-polls in the same evaluate: the resolve's own change (the slot
// emptied) is not reported, so the poll settles on the next request or
// verdict, and a round trip costs one trip to the page instead of two.
export interface Channel {
  listTests(): SuiteList;
  start(filter: string[] | null): boolean;
  poll(waitMs?: number): Promise<Poll>;
  resolve(seq: number, result: CapabilityResult): boolean;
  resolveAndPoll(seq: number, result: CapabilityResult, waitMs?: number): Promise<ResolvedPoll>;
  trigger(): TriggerInfo;
  // The trigger once it has been clicked more than clicks times, or after
  // waitMs as it is then: the runner's wait for its click to land.
  awaitClick(clicks: number, waitMs: number): Promise<TriggerInfo>;
}
