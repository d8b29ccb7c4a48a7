// The context both sides of bench:context ask with (worker.mjs: the broker; phone.mjs: the phone app).

/** A 64 KiB unified diff: one file, a hunk of 64-byte lines. */
export function diffContext(index) {
  const rows = [];
  for (let line = 0; rows.join("\n").length < 64 * 1024 - 80; line++) {
    rows.push(`+const value${line} = computeSomething(${index}, ${line}); // padding to 64 bytes..`.slice(0, 63));
  }
  return {
    kind: "diff",
    files: [
      {
        path: `src/file-${index}.ts`,
        status: "modified",
        added: rows.length,
        removed: 0,
        diff: `@@ -1,0 +1,${rows.length} @@\n${rows.join("\n")}`,
      },
    ],
  };
}
