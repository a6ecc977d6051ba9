import { MESSAGE } from '@obolus/js/protocol';
import { isOutcome, type Outcome } from './api.ts';

/**
 * Shows the issuer's 3-D Secure page in a frame inside the widget and waits for it to hand
 * back the attempt's outcome. Only that frame, on our own origin, is listened to: any other
 * window posting the same message is ignored.
 */
export function runChallenge(slot: HTMLElement, challengeUrl: string): Promise<Outcome> {
  const frame = document.createElement('iframe');
  frame.title = '3-D Secure: confirm this payment with your bank';
  // Our own origin, whatever host name the link names: the page answers its own origin
  // only, so a widget loaded as 127.0.0.1 must not frame it as localhost.
  const url = new URL(challengeUrl, location.href);
  frame.src = `${location.origin}${url.pathname}${url.search}`;
  return new Promise((resolve) => {
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== location.origin || event.source !== frame.contentWindow) return;
      const data = event.data as { type?: unknown; outcome?: unknown } | null;
      if (data?.type !== MESSAGE.challengeComplete || !isOutcome(data.outcome)) return;
      window.removeEventListener('message', onMessage);
      frame.remove();
      resolve(data.outcome);
    };
    window.addEventListener('message', onMessage);
    frame.addEventListener('load', () => fitToContent(frame));
    slot.replaceChildren(frame);
  });
}

/** The bank's page is on our own origin: the frame takes its height instead of a fixed one. */
function fitToContent(frame: HTMLIFrameElement): void {
  try {
    const height = frame.contentDocument?.documentElement.scrollHeight;
    if (height) frame.style.height = `${Math.min(height + 2, 900)}px`;
  } catch {
    // another origin (a live issuer): keep the default height
  }
}
