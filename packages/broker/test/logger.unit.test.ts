import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../src/domain/clock.js";
import { createFileLogger, formatTimestamp, scrub } from "../src/log/logger.js";
import { tempDir } from "./helpers.js";

const LINE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} \[(INFO|WARN|ERROR)\] .+$/;

describe("logs (docs/desktop.md, 'Local presentation rules', rule 8)", () => {
  it("writes daily files with lines `YYYY-MM-DD HH:mm:ss.fff [LEVEL] message`", async () => {
    const dir = tempDir();
    const clock = new ManualClock(new Date(2026, 2, 4, 23, 59, 59, 7).getTime());
    const logger = createFileLogger({ directory: dir, clock });
    logger.info("first");
    logger.warn("second");
    clock.advance(1000);
    logger.error("third, next day");
    await logger.close();
    expect(readdirSync(dir).sort()).toEqual(["notify-2026-03-04.log", "notify-2026-03-05.log"]);
    const day1 = readFileSync(join(dir, "notify-2026-03-04.log"), "utf8").trimEnd().split("\n");
    expect(day1).toEqual(["2026-03-04 23:59:59.007 [INFO] first", "2026-03-04 23:59:59.007 [WARN] second"]);
    const day2 = readFileSync(join(dir, "notify-2026-03-05.log"), "utf8").trimEnd().split("\n");
    expect(day2[0]).toMatch(LINE);
    expect(day2[0]).toContain("[ERROR] third, next day");
    expect(formatTimestamp(new Date(2026, 0, 2, 3, 4, 5, 60).getTime())).toBe("2026-01-02 03:04:05.060");
  });

  it("never throws when the log directory cannot be written", async () => {
    const parent = tempDir();
    const blocked = join(parent, "logs");
    writeFileSync(blocked, "a file where the directory should be");
    const logger = createFileLogger({ directory: blocked });
    expect(() => {
      for (let index = 0; index < 100; index++) logger.error(`line ${index}`);
    }).not.toThrow();
    await expect(logger.flush()).resolves.toBeUndefined();
    await expect(logger.close()).resolves.toBeUndefined();

    const readOnly = join(parent, "ro");
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o500);
    const second = createFileLogger({ directory: readOnly });
    second.info("x");
    await expect(second.close()).resolves.toBeUndefined();
  });

  it("scrubs registered secrets, bearer credentials and token/nonce pairs, and keeps one line per entry", async () => {
    const dir = tempDir();
    const logger = createFileLogger({ directory: dir });
    const secret = "s3cr3t-token-value-abcdef";
    logger.addSecret(secret);
    logger.info(`auth failed for ${secret}`);
    logger.info("header Authorization: Bearer abc.def-ghi");
    logger.info('body {"nonce":"n0nce-value","token": "tok-value"}');
    logger.info("multi\nline\r\nmessage");
    await logger.close();
    const text = readFileSync(join(dir, readdirSync(dir)[0] as string), "utf8");
    for (const leaked of [secret, "abc.def-ghi", "n0nce-value", "tok-value"]) expect(text).not.toContain(leaked);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line).toMatch(LINE);
    expect(scrub("nonce=abc&x=1", [])).toBe("nonce=[redacted]&x=1");
  });
});
