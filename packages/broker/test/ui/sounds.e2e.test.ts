import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_SOUND_BYTES, SoundTooLarge } from "../../src/presentation/sounds/sound-library.js";
import { toneSamples, wavFile } from "../../src/presentation/sounds/tones.js";
import type { Json } from "../helpers.js";
import { axeViolations, chromiumAvailable, signedInPage, startUiBroker, type UiBroker, useBrowser } from "./browser.js";

const run = chromiumAvailable();

interface Listing {
  builtIn: string[];
  imported: { name: string; format: string; bytes: number }[];
  typeSounds: Record<string, string>;
}

describe.skipIf(!run)("Settings page: Sounds in Chromium", () => {
  const browser = useBrowser();
  let ui: UiBroker;
  let files: string;
  beforeEach(async () => {
    ui = await startUiBroker();
    files = mkdtempSync(join(tmpdir(), "notify-sound-files-"));
  });
  afterEach(async () => {
    await ui.close();
    rmSync(files, { recursive: true, force: true });
  });

  it("imports a WAV, refuses an .mp3 holding WAV bytes, sets a type's sound across a reload, deletes the file", async () => {
    await ui.ui("PUT", "/types", [{ id: "deploy", label: "Deploy", enabled: true }]);
    // A real WAV: the broker's own knock tone at half volume (a 44-byte RIFF header and 16-bit samples).
    const wav = wavFile(toneSamples("knock", 50));
    const bell = join(files, "bell.wav");
    const fake = join(files, "fake.mp3");
    writeFileSync(bell, wav);
    writeFileSync(fake, wav);

    const { page, context, problems } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/settings`);
    const sounds = page.getByRole("region", { name: "Sounds", exact: true });
    await sounds.getByText("chime, ping, alert, knock").waitFor();
    await sounds.getByText("No imported sounds.").waitFor();

    // Import: listed in the page and by the API.
    await page.getByLabel("Import a sound").setInputFiles(bell);
    await sounds.getByRole("status").filter({ hasText: "Imported bell (WAV)" }).waitFor();
    const table = sounds.getByRole("table", { name: "Imported sounds" });
    await table.getByRole("cell", { name: "bell", exact: true }).waitFor();
    expect((await ui.ui<Listing>("GET", "/sounds")).body.imported).toEqual([
      expect.objectContaining({ name: "bell", format: "wav", bytes: wav.length }),
    ]);

    // A file named .mp3 whose bytes are WAV: the broker's 400 message, as it is, in an alert.
    await page.getByLabel("Import a sound").setInputFiles(fake);
    const alert = sounds.getByRole("alert");
    await alert.getByText("fake.mp3 is not a MP3 file: its bytes are WAV data").waitFor();
    expect((await ui.ui<Listing>("GET", "/sounds")).body.imported.map((sound) => sound.name)).toEqual(["bell"]);

    // Each type has a select: Default (its default), the four tones, the imported sound, None.
    const deploy = page.getByRole("combobox", { name: "Sound for Deploy" });
    const options = await deploy.locator("option").allTextContents();
    expect(options).toEqual(["Default (chime)", "chime", "ping", "alert", "knock", "bell", "None"]);
    const error = page.getByRole("combobox", { name: "Sound for error" });
    expect(await error.locator("option").first().textContent()).toBe("Default (alert)");

    await deploy.selectOption("bell");
    await page.getByRole("combobox", { name: "Sound for blocked" }).selectOption("None");
    await sounds.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    await page.waitForFunction(
      async () => ((await (await fetch("/ui/api/sounds")).json()) as Listing).typeSounds.blocked === "none",
    );
    expect((await ui.ui<Listing>("GET", "/sounds")).body.typeSounds).toEqual({ deploy: "bell", blocked: "none" });
    // The alert clears once something works again.
    expect(await alert.textContent()).toBe("");

    await page.reload();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await page.getByRole("combobox", { name: "Sound for Deploy" }).waitFor();
    expect(await page.getByRole("combobox", { name: "Sound for Deploy" }).inputValue()).toBe("bell");
    expect(await page.getByRole("combobox", { name: "Sound for blocked" }).inputValue()).toBe("none");
    // Back to the default: the choice is removed, not stored as a name.
    await page.getByRole("combobox", { name: "Sound for blocked" }).selectOption({ label: "Default (knock)" });
    await page.waitForFunction(
      async () => !("blocked" in ((await (await fetch("/ui/api/sounds")).json()) as Listing).typeSounds),
    );
    await page.waitForLoadState("networkidle").catch(() => {});
    expect(await axeViolations(page)).toEqual([]);

    // Delete, by keyboard.
    await page.getByRole("combobox", { name: "Sound for Deploy" }).selectOption({ label: "Default (chime)" });
    await page.waitForFunction(
      async () => !("deploy" in ((await (await fetch("/ui/api/sounds")).json()) as Listing).typeSounds),
    );
    const remove = page.getByRole("button", { name: "Delete bell" });
    await remove.focus();
    await page.keyboard.press("Enter");
    await sounds.getByText("No imported sounds.").waitFor();
    expect((await ui.ui<Listing>("GET", "/sounds")).body.imported).toEqual([]);
    expect(await page.getByRole("combobox", { name: "Sound for Deploy" }).locator("option").allTextContents()).toEqual([
      "Default (chime)",
      "chime",
      "ping",
      "alert",
      "knock",
      "None",
    ]);
    // The refused upload is the one failed request the page made; nothing else went wrong.
    expect(problems.filter((problem) => !problem.includes("400"))).toEqual([]);
    await context.close();
  });

  it("lists a custom type added in the Notification types card without a reload", async () => {
    const { page, context } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/settings`);
    await page.getByRole("combobox", { name: "Sound for info" }).waitFor();
    await page.getByRole("textbox", { name: "Type ID" }).fill("review");
    await page.getByRole("textbox", { name: "Label" }).fill("Review");
    await page.getByRole("button", { name: "Add type" }).click();
    const review = page.getByRole("combobox", { name: "Sound for Review" });
    await review.waitFor();
    await review.selectOption("ping");
    await page.waitForFunction(
      async () => ((await (await fetch("/ui/api/sounds")).json()) as Listing).typeSounds.review === "ping",
    );
    expect((await ui.ui<Json>("GET", "/sounds")).body.typeSounds).toEqual({ review: "ping" });
    await context.close();
  });

  it("shows the broker's 413 message for a file over 10 MB and imports nothing", async () => {
    const big = join(files, "huge.wav");
    const wav = wavFile(new Int16Array(MAX_SOUND_BYTES / 2)); // 44 header bytes over the limit
    writeFileSync(big, wav);
    const { page, context } = await signedInPage(browser(), ui);
    await page.goto(`${ui.broker.url}/ui/settings`);
    await page.getByLabel("Import a sound").setInputFiles(big);
    await page.getByRole("alert").getByText(new SoundTooLarge().message).waitFor();
    expect((await ui.ui<Listing>("GET", "/sounds")).body.imported).toEqual([]);
    await context.close();
  });
});
