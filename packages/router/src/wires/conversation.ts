import type { AssistantMessage, ImagePart, Message, TextPart, ToolResultPart, Warning, WarningCode } from "../ir.js";

/**
 * Collects a conversation while a request is decoded: system text from wherever the wire puts it, messages with
 * consecutive same-role turns merged (an assistant text item followed by its function calls is one assistant turn),
 * and each distinct warning once.
 */
export class ConversationBuilder {
  private readonly systemTexts: string[] = [];
  readonly messages: Message[] = [];
  private readonly warningKeys = new Set<string>();
  readonly warnings: Warning[] = [];

  addSystem(text: string): void {
    if (text !== "") this.systemTexts.push(text);
  }

  get system(): string | undefined {
    return this.systemTexts.length === 0 ? undefined : this.systemTexts.join("\n\n");
  }

  addUser(parts: (TextPart | ImagePart)[]): void {
    if (parts.length === 0) return;
    const last = this.messages.at(-1);
    if (last?.role === "user") last.parts.push(...parts);
    else this.messages.push({ role: "user", parts });
  }

  addAssistant(parts: AssistantMessage["parts"]): void {
    if (parts.length === 0) return;
    const last = this.messages.at(-1);
    if (last?.role === "assistant") last.parts.push(...parts);
    else this.messages.push({ role: "assistant", parts });
  }

  addToolResult(part: ToolResultPart): void {
    const last = this.messages.at(-1);
    if (last?.role === "tool") last.parts.push(part);
    else this.messages.push({ role: "tool", parts: [part] });
  }

  warn(code: WarningCode, detail: string): void {
    const key = `${code}:${detail}`;
    if (this.warningKeys.has(key)) return;
    this.warningKeys.add(key);
    this.warnings.push({ code, detail });
  }
}
