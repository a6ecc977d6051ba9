import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { registerAssets } from './assets.ts';
import { prebuildBundles } from './bundles.ts';
import { registerEmbedPage } from './embed-page.ts';
import { registerHostedPage } from './hosted-page.ts';
import { registerHostedSession } from './hosted-session.ts';

/**
 * What shoppers' browsers load: the widget page and its script, the loader merchants
 * embed, and the hosted checkout page of catalog products. The widget's JSON API under
 * /embed/v1 is registered separately (http/embed/).
 */
export async function registerCheckout(app: FastifyInstance, services: Services): Promise<void> {
  prebuildBundles();
  registerAssets(app);
  registerEmbedPage(app, services);
  registerHostedPage(app, services);
  registerHostedSession(app, services);
}
