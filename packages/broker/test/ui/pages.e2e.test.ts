import { createServer, type IncomingMessage } from "node:http";
import type { Response } from "playwright-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Json } from "../helpers.js";
import {
  chromiumAvailable,
  pageAxeViolations,
  startUiBroker,
  type UiBroker,
  useBrowser,
  useSharedPage,
} from "./browser.js";

const run = chromiumAvailable();

/** A stand-in Gotify server on loopback that records what reaches it. */
async function gotify(): Promise<{ url: string; hits: IncomingMessage[]; close: () => Promise<void> }> {
  const hits: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    hits.push(request);
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end('{"id":1}'));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!run)("web UI pages in Chromium", () => {
  // rebind.test resolves to 127.0.0.1 in this browser only: a DNS-rebinding page, as far as the broker can tell.
  const browser = useBrowser(["--host-resolver-rules=MAP rebind.test 127.0.0.1"]);
  // One page for the file: each test signs it in to its own broker.
  const shared = useSharedPage(browser);
  let ui: UiBroker;
  beforeEach(async () => {
    ui = await startUiBroker();
  });
  afterEach(async () => {
    await ui.close();
  });

  // Every page of the UI, each loaded and checked by axe: 24 s on a 2-core machine at load 4.5, so a loaded run needs more
  // than the suite's 30 s.
  it("loads every page with no console error and no serious or critical accessibility violation", {
    timeout: 90_000,
  }, async () => {
    const notification = (await ui.v1<Json>("POST", "/notifications", { title: "Deployed", message: "v2 is live" }))
      .body;
    const question = (await ui.v1<Json>("POST", "/interactions/request", { kind: "text", prompt: "Release notes?" }))
      .body;
    await ui.ui("POST", "/outbound/providers", {
      kind: "webhook",
      name: "hook",
      settings: { url: "http://127.0.0.1:9/hook" },
    });
    await ui.ui("POST", "/outbound/routes", { name: "all", provider: "hook" });
    await ui.ui("PUT", "/types", [{ id: "deploy", label: "Deploy", enabled: true, defaultPriority: "high" }]);
    const { page, problems } = await shared.open(ui);
    const pages: [string, string][] = [
      ["/ui/", "Inbox"],
      ["/ui/settings", "Settings"],
      ["/ui/outbound", "Outbound"],
      ["/ui/router", "Router"],
      [`/ui/notifications/${notification.id}`, "Notification"],
      [`/ui/questions/${question.id}`, "Question"],
    ];
    for (const [path, heading] of pages) {
      // The first, /ui/, is the page the sign-in loaded.
      if (path !== "/ui/") await page.goto(`${ui.broker.url}${path}`);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState("networkidle").catch(() => {});
      expect(await pageAxeViolations(page), path).toEqual([]);
    }
    // The navigation moves between pages in place.
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    expect(await page.getByRole("link", { name: "Settings" }).getAttribute("aria-current")).toBe("page");
    expect(problems).toEqual([]);
  });

  it("refuses the page under a non-loopback Host, and a change without X-Notify-UI from a signed-in page", async () => {
    const { page } = await shared.open(ui);
    const refused = await page.goto(`http://rebind.test:${ui.broker.port}/ui/`);
    expect(refused?.status()).toBe(403);
    expect(await page.textContent("body")).toContain("non-loopback host");

    await page.goto(`${ui.broker.url}/ui/settings`);
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    const statuses = await page.evaluate(async () => {
      const put = (headers: Record<string, string>) =>
        fetch("/ui/api/presentation", { method: "PUT", headers, body: JSON.stringify({ volume: 3 }) }).then(
          (r) => r.status,
        );
      return {
        withoutHeader: await put({ "content-type": "application/json" }),
        withHeader: await put({ "content-type": "application/json", "x-notify-ui": "1" }),
      };
    });
    expect(statuses).toEqual({ withoutHeader: 403, withHeader: 200 });
  });

  /** `promise`, or a failure naming `what` after 20 s (a hang then says where it was). */
  const within = <T>(what: string, promise: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took more than 20 s`)), 20_000);
    });
    return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
  };

  it("keeps settings changed in the page across a broker restart", async () => {
    const { page, problems } = await shared.open(ui);
    await page.goto(`${ui.broker.url}/ui/settings`);
    const dnd = page.getByRole("checkbox", { name: "Do not disturb", exact: true });
    await dnd.check();
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    const volume = page.getByRole("spinbutton", { name: "Volume" });
    await volume.fill("35");
    await volume.press("Enter");
    await page.waitForFunction(
      async () => ((await (await fetch("/ui/api/presentation")).json()) as { volume: number }).volume === 35,
    );
    const toasts = page.getByRole("spinbutton", { name: "Most toasts at once" });
    await toasts.fill("25");
    await toasts.blur();
    expect(await toasts.inputValue()).toBe("5");

    const dataDir = ui.dataDir;
    await within("the broker's close", ui.close());
    ui = await within("the broker's restart", startUiBroker(dataDir));
    // The session cookie is tied to the token in config.json, not to the process: it still works.
    await page.goto(`${ui.broker.url}/ui/settings`);
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await page.getByRole("checkbox", { name: "Do not disturb", exact: true }).waitFor();
    expect(await page.getByRole("checkbox", { name: "Do not disturb", exact: true }).isChecked()).toBe(true);
    expect(await page.getByRole("spinbutton", { name: "Volume" }).inputValue()).toBe("35");
    expect(await page.getByRole("checkbox", { name: "Pause notifications" }).isChecked()).toBe(false);
    expect((await ui.ui<Json>("GET", "/presentation")).body).toMatchObject({ doNotDisturb: true, volume: 35 });
    expect(problems).toEqual([]);
  }, 60_000);

  it("never shows a provider secret typed in the page again: not in /ui/api responses, the DOM or page state", async () => {
    const SECRET = "gtf-SECRET-7f3a9c1e5b";
    const server = await gotify();
    try {
      const { page, problems } = await shared.open(ui);
      const bodies: string[] = [];
      const collect = async (response: Response) => {
        if (response.url().includes("/ui/api/") && !response.url().includes("/stream")) {
          bodies.push(await response.text().catch(() => ""));
        }
      };
      page.on("response", collect);
      await page.goto(`${ui.broker.url}/ui/outbound`);
      await page.getByRole("heading", { name: "Outbound", level: 1 }).waitFor();
      await page.getByText("Add a provider").click();
      await page.getByRole("combobox", { name: "Kind" }).selectOption("gotify");
      await page.getByRole("textbox", { name: "Name" }).fill("phone");
      await page.getByRole("textbox", { name: "Settings (JSON)" }).fill(JSON.stringify({ serverUrl: server.url }));
      await page.getByLabel("appToken").fill(SECRET);
      await page.getByRole("button", { name: "Add provider" }).click();
      await page.getByText("Secrets: appToken set").waitFor();
      await page.getByRole("button", { name: "Enable phone" }).click();
      await page.getByText("Enabled", { exact: true }).waitFor();
      await page.getByRole("button", { name: "Test phone" }).click();
      await page.getByText(/Test: delivered/).waitFor();
      // The secret reached the provider, sealed at rest and opened only at the adapter.
      expect(server.hits.some((hit) => hit.headers["x-gotify-key"] === SECRET)).toBe(true);

      // A route with its gates, added and then edited in the page.
      await page.getByText("Add a route").click();
      await page.getByRole("textbox", { name: "Route name" }).last().fill("urgent");
      await page.getByRole("combobox", { name: "Minimum priority" }).last().selectOption("high");
      await page.getByRole("button", { name: "Add route" }).click();
      await page.getByRole("cell", { name: "≥ high" }).waitFor();
      await page.getByText("Edit route urgent").click();
      await page.getByRole("textbox", { name: "Only project (optional)" }).first().fill("shop");
      await page.getByRole("button", { name: "Save route" }).click();
      await page.getByRole("cell", { name: "≥ high, project shop" }).waitFor();
      const [route] = (await ui.ui<Json[]>("GET", "/outbound/routes")).body;
      expect(route).toMatchObject({ name: "urgent", minimumPriority: "high", project: "shop", enabled: false });

      await page.reload();
      await page.getByText("Secrets: appToken set").waitFor();
      const state = await page.evaluate(() => ({
        html: document.documentElement.outerHTML,
        inputs: [...document.querySelectorAll("input, textarea")].map((input) => (input as HTMLInputElement).value),
        storage: JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
      }));
      expect(JSON.stringify(state)).not.toContain(SECRET);
      expect(bodies.length).toBeGreaterThan(3);
      for (const body of bodies) expect(body).not.toContain(SECRET);
      for (const path of [
        "/outbound/providers",
        "/outbound/routes",
        "/outbound/outbox",
        "/inbox",
        "/presentation",
        "/types",
      ]) {
        expect((await ui.ui("GET", path)).text, path).not.toContain(SECRET);
      }
      expect(problems).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("shows the router's switch and never its key", async () => {
    const { page, problems } = await shared.open(ui);
    await page.goto(`${ui.broker.url}/ui/router`);
    const toggle = page.getByRole("checkbox", { name: "Router on" });
    await toggle.check();
    await page.getByText(/key set/).waitFor();
    const key = String((await import("../../src/config/config-file.js")).readConfigFile(ui.dataDir).RouterKey);
    expect(key).toMatch(/^nrk_/);
    expect(await page.content()).not.toContain(key);
    expect((await ui.ui("GET", "/router/status")).text).not.toContain(key);

    // An upstream added, used by an alias, refused for deletion with the rule's error, then edited.
    const UPSTREAM_KEY = "sk-upstream-5c2e9a";
    await page.getByRole("button", { name: /Custom provider/ }).click();
    await page.getByRole("textbox", { name: "Slug" }).fill("local");
    await page.getByRole("textbox", { name: "Base URL" }).fill("http://127.0.0.1:9/v1");
    await page.getByRole("textbox", { name: "Other model IDs (comma separated)" }).fill("coder, chat");
    await page.getByLabel("API key").fill(UPSTREAM_KEY);
    await page.getByRole("button", { name: "Add provider" }).click();
    await page.getByText(/key set · 2 models/).waitFor();
    // Aliases and combos live on the Routing sub-page; deletion and editing on Providers.
    await page.getByRole("navigation", { name: "Router pages" }).getByRole("link", { name: "Routing" }).click();
    await page.getByText("Add an alias or combo").click();
    await page.getByRole("textbox", { name: "Name", exact: true }).last().fill("fast");
    await page.getByRole("combobox", { name: "Target 1" }).fill("local/coder");
    await page.getByRole("button", { name: "Add route" }).click();
    await page.getByText("local/coder").waitFor();
    await page.getByRole("navigation", { name: "Router pages" }).getByRole("link", { name: "Providers" }).click();
    await page.getByRole("button", { name: "Delete local" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /still used by/ })
      .waitFor();
    await page.getByText("Edit local").click();
    await page.getByRole("textbox", { name: "Label" }).first().fill("Local server");
    await page.getByRole("button", { name: "Save upstream" }).click();
    await page.getByText("Local server", { exact: true }).first().waitFor();
    expect((await ui.ui("GET", "/router/upstreams")).text).not.toContain(UPSTREAM_KEY);
    expect(await page.content()).not.toContain(UPSTREAM_KEY);
    // The refused deletion is the one failed request (Chromium logs every 4xx); nothing else went wrong.
    expect(problems).toEqual([
      "console: Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
  });
});
