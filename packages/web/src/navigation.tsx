import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from "react";

/** Client-side routes under /ui (the broker answers every one of them with the page). */
const listeners = new Set<() => void>();
window.addEventListener("popstate", () => {
  for (const listener of listeners) listener();
});

export function navigate(path: string): void {
  window.history.pushState(null, "", path);
  window.scrollTo(0, 0);
  for (const listener of listeners) listener();
}

export function usePath(): string {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => window.location.pathname.replace(/\/+$/, "") || "/ui",
  );
}

/** A real link (open in new tab works) that navigates in place on a plain click. */
export function Link({ href, onClick: outer, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    outer?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} {...rest} onClick={onClick} />;
}
