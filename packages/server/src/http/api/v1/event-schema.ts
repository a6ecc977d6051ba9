import { Type } from 'typebox';
import { EVENT_TYPES } from '../../../domain/events.ts';
import { ModeEnum } from './schema-parts.ts';

/** An event as webhooks deliver it and the events API answers it, byte for byte the same body. */
export const EventOut = Type.Object({
  id: Type.String(),
  object: Type.Literal('event'),
  type: Type.Enum([...EVENT_TYPES]),
  created: Type.Number({ description: 'Unix seconds, with milliseconds as a fraction' }),
  mode: ModeEnum,
  sequence: Type.Integer({ description: '1, 2, 3 … per object: the order of the events of one object' }),
  data: Type.Object({ object: Type.Unknown() }),
});
