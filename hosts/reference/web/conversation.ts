// The conversation: turns, the composer and the backend's chat API.

import { variation } from "./config";
import { el, newChatBtn, conversation, input, composer, log } from "./layout";
import { type Launch, AppView, views } from "./view";
import { api } from "./appchannel";

// New content follows the conversation only while the user is at its end:
// someone who scrolled up to use an earlier app is not yanked away.
export function followConversation(add: () => void): void {
  const atEnd = conversation.scrollHeight - conversation.scrollTop - conversation.clientHeight < 48;
  add();
  if (atEnd) conversation.scrollTop = conversation.scrollHeight;
}

export function addTurn(role: "user" | "assistant", text: string): HTMLElement {
  const turn = el("div", { class: `turn ${role}`, "data-role": role }, el("div", { class: "bubble" }, text));
  followConversation(() => conversation.append(turn));
  return turn;
}

// What /api/chat and /api/tools/call answer: the assistant's reply and,
// when the tool called has an app, what the page needs to show it.
export interface Reply {
  reply: string;
  launch?: Launch | null;
  // The agent calls a tool a shown View provides (draft §App-Provided
  // Tools): the page sends it to that View and shows the View's answer.
  viewCall?: ViewCall | null;
}

export interface ViewCall {
  callId: string;
  name: string;
  arguments: Record<string, unknown>;
  // What the answer ends with on success or on error (the agent's Outcome).
  onSuccess?: string;
  onError?: string;
}

export function showReply(r: Reply): void {
  const turn = addTurn("assistant", r.reply);
  if (r.launch) new AppView(r.launch, turn);
  if (r.viewCall) void callViewTool(r.viewCall);
}

// The View's answer to the agent's call of its tool, written into the
// conversation as the agent's next turn: the text of the CallToolResult,
// or the error (a View gone meanwhile: "Calling a tool from a closed app
// MUST return an error", draft L2644).
async function callViewTool(c: ViewCall): Promise<void> {
  const view = [...views].find((v) => v.launch.callId === c.callId);
  try {
    if (!view) throw new Error(`the app that provides ${c.name} is closed`);
    const res = await view.callAppTool(c.name, c.arguments);
    const text = Array.isArray(res?.content) ? res.content.map((b: any) => (b?.type === "text" ? String(b.text) : `[${String(b?.type)}]`)).join(" ") : "";
    const word = (w?: string) => (w ? ` ${w}` : "");
    addTurn("assistant", res?.isError ? `${c.name} failed: ${text}${word(c.onError)}` : `${c.name} answered: ${text || "(no text)"}${word(c.onSuccess)}`);
  } catch (e) {
    addTurn("assistant", `Error: ${c.name}: ${e instanceof Error ? e.message : String(e)}${c.onError ? ` ${c.onError}` : ""}`);
  }
}

// shownAs is the role the turn shows: the user's, but for the
// message-role-changed defect.
export async function userMessage(text: string, shownAs: "user" | "assistant" = "user"): Promise<void> {
  addTurn(shownAs, text);
  // The no-agent variation (a development host): the conversation shows
  // the message and no model answers it; tools are called from the picker.
  if (variation("no-agent")) return;
  showReply(await api<Reply>("/api/chat", { text }));
}

composer.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  void userMessage(text);
});
input.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && !ev.shiftKey) {
    ev.preventDefault();
    composer.requestSubmit();
  }
});

// A new conversation tears every View down gracefully (S L1201: "for any
// reason"), then clears the conversation and the model context.
newChatBtn.addEventListener("click", () => {
  void (async () => {
    newChatBtn.disabled = true;
    try {
      await Promise.all([...views].map((v) => v.close("The user started a new conversation")));
      conversation.replaceChildren();
      await api("/api/new-conversation", {});
      log("host", "new conversation");
    } finally {
      newChatBtn.disabled = false;
    }
  })();
});
