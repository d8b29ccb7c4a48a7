import type { RelayLogger } from "../log.js";

const SUMMARY_INTERVAL = 60_000;

/**
 * What the relay logs about requests: each refusal and failure (status 400 and up, except 429, which a flood would
 * turn into a flood of lines), and once a minute a count by status class. Successful requests are only counted: at
 * thousands of answers a second a line each would cost more than storing them. Lines carry the route pattern, never
 * the URL (query strings carry cursors, paths carry ids nobody needs).
 */
export class AccessLog {
  private counts = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly logger: RelayLogger) {
    this.timer = setInterval(() => this.flush(), SUMMARY_INTERVAL);
    this.timer.unref();
  }

  record(method: string, route: string, status: number, milliseconds: number): void {
    const key = `${Math.floor(status / 100)}xx`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (status >= 400 && status !== 429) {
      const line = `${method} ${route} ${status} ${milliseconds.toFixed(1)}ms`;
      if (status >= 500) this.logger.error(line);
      else this.logger.info(line);
    }
  }

  flush(): void {
    if (this.counts.size === 0) return;
    const parts = [...this.counts.entries()].sort().map(([key, count]) => `${key} ${count}`);
    this.counts = new Map();
    this.logger.info(`requests in the last minute: ${parts.join(", ")}`);
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
