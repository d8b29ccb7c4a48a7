/** Thrown by commands; the entry maps it to the exit status. Only main.ts calls process.exit. */
export class ExitError extends Error {
  constructor(
    readonly exitCode: number,
    message = "",
  ) {
    super(message);
    this.name = "ExitError";
  }
}
