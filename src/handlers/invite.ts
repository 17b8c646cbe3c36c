import { inviteCard } from "../documents/onboarding.js";
import type { Handler } from "../services.js";

/** `/invite.json` and its aliases. */
export const getInvite: Handler<"getInvite"> = (_input, { market }) => ({ status: 200, body: inviteCard(market) });
