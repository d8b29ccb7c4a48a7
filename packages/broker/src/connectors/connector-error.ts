/** A refusal with the HTTP status the route answers with; nothing was changed. */
export class ConnectorError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = "ConnectorError";
  }
}
