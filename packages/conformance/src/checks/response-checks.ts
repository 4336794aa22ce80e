import type { Exchange } from '../http/exchange.js';
import type { Contract } from '../spec/contract.js';
import type { Outcome } from './catalog.js';
import { contentTypeConformance } from './content-type-conformance.js';
import { notAServerError } from './not-a-server-error.js';
import { responseHeadersConformance } from './response-headers-conformance.js';
import { responseSchemaConformance } from './response-schema-conformance.js';
import { statusCodeConformance } from './status-code-conformance.js';

/**
 * The checks every answer gets, whatever was sent, from the spec alone: the run applies them to
 * each exchange, and the proxy to the traffic it forwards.
 */
export function responseOutcomes(contract: Contract, exchange: Exchange): Outcome[] {
  return [
    notAServerError(exchange),
    statusCodeConformance(exchange),
    contentTypeConformance(exchange),
    responseSchemaConformance(contract, exchange),
    responseHeadersConformance(contract, exchange),
  ].filter((outcome) => outcome !== undefined);
}
