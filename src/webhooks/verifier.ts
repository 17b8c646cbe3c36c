// The handshake: each pending endpoint is sent a signed challenge and verified when it echoes it.
// Endpoints are taken round-robin (the longest due first, a page per pass), each waits longer after
// every request it left unanswered, and one that answered without the challenge is refused at once:
// the marketplace's address cannot be made to send POSTs, again and again, wherever anyone likes.
import { CHALLENGE_NOT_ECHOED, type WebhookStore, type WebhookSubscription } from "./webhook-store.js";
import type { AttemptsInFlight } from "./attempts.js";
import { eventPayload, signedHeaders } from "./signing.js";
import { post, type TransportOptions } from "./transport.js";

/** A pending endpoint that never answered its challenge is disabled after this. */
export const VERIFICATION_WINDOW_MS = 24 * 3_600_000;
/** The wait after the first unanswered request; it doubles after each, up to VERIFY_MAX_WAIT_MS. */
export const VERIFY_FIRST_WAIT_MS = 2_000;
const VERIFY_MAX_WAIT_MS = 3_600_000;
/** Requests an endpoint may leave unanswered before it is given up (about 14 hours of them). */
export const VERIFY_MAX_ATTEMPTS = 24;
/** Endpoints sent their challenge per pass, at most. */
const VERIFY_PAGE = 50;

export interface VerifierDeps {
  store: WebhookStore;
  transport: TransportOptions;
  concurrency: number;
  inFlight: AttemptsInFlight;
  now(): Date;
}

export class Verifier {
  constructor(private readonly deps: VerifierDeps) {}

  /** Queues the challenge of each pending endpoint that is due one; counts the verified ones into `report`. */
  async offerDue(report: { verified: number }): Promise<void> {
    const { store, now, inFlight } = this.deps;
    const due = await inFlight.notInFlight(
      () => store.pendingVerification(now(), VERIFY_PAGE),
      (subscription) => subscription.id,
    );
    inFlight.offer(
      "verification",
      due,
      (subscription) => subscription.id,
      this.deps.concurrency,
      async (subscription) => {
        if (await this.verify(subscription)) report.verified++;
        return false;
      },
    );
  }

  private async verify(subscription: WebhookSubscription): Promise<boolean> {
    const { store, now } = this.deps;
    const at = now();
    if (
      at.getTime() - subscription.createdAt.getTime() > VERIFICATION_WINDOW_MS ||
      subscription.verifyAttempts >= VERIFY_MAX_ATTEMPTS
    ) {
      await store.disable(subscription.id, "verification_failed");
      return false;
    }
    const payload = eventPayload("webhook.verification", at, {
      subscriptionId: subscription.id,
      challenge: subscription.challenge,
    });
    const answer = await post(
      subscription.url,
      payload,
      signedHeaders(subscription.secret, `verify_${subscription.id}`, payload, new Date()),
      this.deps.transport,
    );
    if (answer.ok && echoed(answer.body ?? "", subscription.challenge ?? "")) {
      await store.verified(subscription.id, now());
      return true;
    }
    if (answer.statusCode !== null) {
      // It answered, and not with the challenge: asking again would only send more POSTs to it.
      await store.disable(subscription.id, CHALLENGE_NOT_ECHOED);
      return false;
    }
    const wait = Math.min(VERIFY_FIRST_WAIT_MS * 2 ** subscription.verifyAttempts, VERIFY_MAX_WAIT_MS);
    await store.verificationDeferred(subscription.id, new Date(now().getTime() + wait));
    return false;
  }
}

/** The endpoint echoed the challenge: as `{"challenge": "..."}` or as the whole body. */
function echoed(body: string, challenge: string): boolean {
  if (!challenge) return false;
  if (body.trim() === challenge) return true;
  try {
    return (JSON.parse(body) as { challenge?: unknown }).challenge === challenge;
  } catch {
    return false;
  }
}
