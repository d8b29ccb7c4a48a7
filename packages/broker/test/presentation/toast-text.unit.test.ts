import { describe, expect, it } from "vitest";
import { TypeRegistry } from "../../src/notifications/type-ids.js";
import { notificationToast, questionToast } from "../../src/presentation/toast.js";
import { notification, question } from "./fixtures.js";

const CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

describe("toast text", () => {
  it("shows bidi controls of a notification as visible tokens, keeping the logical order", () => {
    const toast = notificationToast(
      notification("n1", { title: "Saved invoice\u202Etxt.exe", message: "run \u2067evil\u2069 now\u200F" }),
      new TypeRegistry(),
    );
    expect(toast.title).toBe("Saved invoice<U+202E>txt.exe");
    expect(toast.body).toBe("run <U+2067>evil<U+2069> now<U+200F>");
    expect(`${toast.title}${toast.body}`).not.toMatch(CONTROLS);
  });

  it("shows bidi controls of a question's prompt, agent and choice labels as tokens", () => {
    const toast = questionToast(
      question("q1", {
        agent: "co\u202Ddex",
        prompt: "Open \u202Aa\u202B\u202C\u061C\u200E\u2066\u2068?",
        choices: [
          { id: "allow", label: "Allow\u202E" },
          { id: "deny", label: "Deny" },
        ],
      }),
      new TypeRegistry(),
    );
    expect(toast.title).toBe("Permission needed from co<U+202D>dex");
    expect(toast.body).toBe("Open <U+202A>a<U+202B><U+202C><U+061C><U+200E><U+2066><U+2068>?");
    expect(toast.actions.map((action) => action.label)).toEqual(["Allow<U+202E>", "Deny", "Open"]);
    expect(JSON.stringify(toast)).not.toMatch(CONTROLS);
  });

  it("leaves text without bidi controls as it is, right-to-left letters included", () => {
    const toast = notificationToast(notification("n2", { title: "שלום world", message: "مرحبا" }), new TypeRegistry());
    expect(toast.title).toBe("שלום world");
    expect(toast.body).toBe("مرحبا");
  });
});
