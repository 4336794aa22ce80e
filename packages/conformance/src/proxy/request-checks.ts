import type { Outcome } from '../checks/catalog.js';
import { matchingMediaType, mediaTypeOf } from '../checks/content-type-conformance.js';
import { describeErrors } from '../checks/response-schema-conformance.js';
import type { Contract, Operation } from '../spec/contract.js';

/** A request as the proxy received it. */
export interface ReceivedRequest {
  method: string;
  pathname: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * `request_conformance`: the request is one the spec documents: a known operation, its path
 * parameters and body valid against their schemas, sent with the documented Content-Type. The
 * client's side of the contract, for integrators watching their own traffic.
 */
export function requestOutcome(
  contract: Contract,
  operation: Operation,
  parameters: Record<string, string>,
  request: ReceivedRequest,
): Outcome {
  const check = 'request_conformance';
  const problems: string[] = [];
  for (const parameter of operation.pathParameters) {
    const validate = contract.validator(parameter.schema);
    if (!validate(parameters[parameter.name]))
      problems.push(`path parameter ${parameter.name}: ${describeErrors(validate.errors)}`);
  }
  const { body } = operation;
  if (body) {
    const type = mediaTypeOf(request.headers['content-type']);
    if (!type || !matchingMediaType([body.mediaType], type)) {
      problems.push(
        `Content-Type ${request.headers['content-type'] ?? '(none)'} is not ${body.mediaType}`,
      );
    } else if (request.body.length === 0) {
      if (body.required) problems.push('the body is required');
    } else {
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(request.body));
      } catch {
        problems.push('the body is not JSON');
      }
      if (json !== undefined) {
        const validate = contract.validator(body.schema);
        if (!validate(json))
          problems.push(`the body breaks the schema: ${describeErrors(validate.errors)}`);
      }
    }
  }
  if (operation.secured && request.headers.authorization === undefined)
    problems.push('no Authorization header');
  if (problems.length === 0) return { check, operation: operation.id, ok: true };
  return {
    check,
    operation: operation.id,
    ok: false,
    message: `the request breaks the contract: ${problems.join('; ')}`,
  };
}
