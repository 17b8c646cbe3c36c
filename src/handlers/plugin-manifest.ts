import { pluginManifest } from "../documents/agent-manifests.js";
import type { Handler } from "../services.js";

/** `/ai-plugin.json` and its aliases. */
export const getPluginManifest: Handler<"getPluginManifest"> = (_input, { market }) => ({ status: 200, body: pluginManifest(market) });
