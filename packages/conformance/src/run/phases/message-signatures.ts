import fc from 'fast-check';
import type { CheckId, Outcome } from '../../checks/catalog.js';
import type { Exchange, SentRequest } from '../../http/exchange.js';
import type { MessageSignatureRecipe } from '../../http/message-signature.js';
import { freshIdentity } from '../../semantics/user-semantics.js';
import type { Operation } from '../../spec/contract.js';
import type { RunContext } from '../context.js';
import { bytesOf, targetOf } from '../links.js';
import { withResponseChecks } from '../property.js';
import { freshParameters, type Parameters, subjectParameters } from '../subjects.js';

/** How far back a stale `created` is set: twice the spec's window of 300 s. */
export const STALE_SECONDS = 600;

/** One way of tampering with a request signed both ways, under one check. */
interface Tampering {
  check: CheckId;
  /** What the tampered request is, in words. */
  cause: string;
  /**
   * The tampered request, given the control request as sent (accepted) and a fresh body: its
   * body, target and message signature. `undefined` fields are the control's.
   */
  make(
    control: Exchange,
    fresh: Uint8Array<ArrayBuffer>,
  ): {
    body?: Uint8Array<ArrayBuffer>;
    target?: string;
    messageSignature: MessageSignatureRecipe;
  };
  /** Needs a second resource of the operation, to send the request to (a path swap). */
  otherResource?: boolean;
}

const TAMPERINGS: Tampering[] = [
  {
    check: 'message_signature_replay',
    cause: 'the accepted request sent again as it was',
    make: (control) => ({
      body: control.request.body,
      messageSignature: { kind: 'same-as', request: control.request },
    }),
  },
  {
    check: 'message_signature_stale',
    cause: `a message signature created ${STALE_SECONDS} s ago`,
    make: (_, fresh) => ({
      body: fresh,
      messageSignature: { kind: 'signed', as: 'main', createdOffset: -STALE_SECONDS },
    }),
  },
  {
    check: 'message_signature_body_changed',
    cause:
      'another body under the message signature (the Authorization header made for the body sent)',
    make: (control, fresh) => ({
      body: fresh,
      messageSignature: {
        kind: 'signed',
        as: 'main',
        ...(control.request.body ? { body: control.request.body } : {}),
      },
    }),
  },
  {
    check: 'message_signature_content_digest',
    cause: 'a message signature that does not cover "content-digest"',
    make: (_, fresh) => ({
      body: fresh,
      messageSignature: { kind: 'signed', as: 'main', components: ['@method', '@path'] },
    }),
  },
  {
    check: 'message_signature_path_changed',
    cause: 'a request signed for one resource, sent to another',
    otherResource: true,
    make: (control, fresh) => ({
      body: fresh,
      messageSignature: { kind: 'signed', as: 'main', target: control.request.target },
    }),
  },
];

/**
 * The message-signature checks (`--message-signatures`), for a service whose key pair requires
 * RFC 9421 message signatures (the spec's `InstitutionSignature` scheme, policy
 * `message-signature`). For each check and operation: a control request signed both ways must be
 * accepted (else the refusals prove nothing), then the tampered request must answer 401, with its
 * message signature and without it (what a captured request becomes once its signature fields are
 * taken off; a service whose key does not require message signatures accepts that one). The path
 * swap needs an operation with a path parameter, and a second resource to send to.
 */
export async function messageSignaturePhase(
  context: RunContext,
  operation: Operation,
): Promise<void> {
  const bodies = context.bodies.get(operation);
  if (!operation.secured || !bodies) return;
  const parameters = await subjectParameters(context, operation);
  const validate = context.contract.validator(operation.body?.schema ?? {});
  const freshBodies = fc
    .sample(bodies, { seed: context.seed + 17, numRuns: 100 })
    .map(freshIdentity)
    .filter((body) => validate(body) === true);
  let next = 0;
  const freshBody = () => bytesOf(freshIdentity(freshBodies[next++ % freshBodies.length]));
  for (const tampering of TAMPERINGS) {
    if (context.traffic.exhausted) return;
    if ('missing' in parameters) {
      context.results.skip(tampering.check, operation.id, parameters.missing);
      continue;
    }
    if (tampering.otherResource && operation.pathParameters.length === 0) continue;
    if (freshBodies.length === 0) {
      context.results.skip(tampering.check, operation.id, 'no valid body could be generated');
      continue;
    }
    let other: Parameters | undefined;
    if (tampering.otherResource) {
      other = await freshParameters(context, operation);
      if ('missing' in other) {
        context.results.skip(tampering.check, operation.id, other.missing);
        continue;
      }
    }
    context.progress({
      phase: 'message signatures',
      operation: operation.id,
      done: TAMPERINGS.indexOf(tampering),
      planned: TAMPERINGS.length,
    });
    const send = (spec: {
      body?: Uint8Array<ArrayBuffer>;
      target: string;
      messageSignature?: MessageSignatureRecipe;
      idFrom?: SentRequest['idFrom'];
    }) =>
      context.traffic.send(operation, {
        method: operation.method,
        target: spec.target,
        ...(spec.idFrom ? { idFrom: spec.idFrom } : {}),
        ...(spec.body ? { body: spec.body } : {}),
        authorization: { kind: 'signed', as: 'main' },
        ...(spec.messageSignature ? { messageSignature: spec.messageSignature } : {}),
      });
    const target = targetOf(operation, parameters.values);
    const control = await send({
      body: freshBody(),
      target,
      ...(parameters.idFrom ? { idFrom: parameters.idFrom } : {}),
    });
    const tampered = tampering.make(control, freshBody());
    const sentTo =
      other && !('missing' in other)
        ? { target: targetOf(operation, other.values), idFrom: other.idFrom }
        : { target, idFrom: parameters.idFrom };
    const withSignature = await send({
      ...tampered,
      target: sentTo.target,
      ...(sentTo.idFrom ? { idFrom: sentTo.idFrom } : {}),
    });
    const without = await send({
      ...tampered,
      messageSignature: { kind: 'none' },
      target: sentTo.target,
      ...(sentTo.idFrom ? { idFrom: sentTo.idFrom } : {}),
    });
    const exchanges = [control, withSignature, without];
    record(context, tampering, exchanges);
  }
}

/** The check's outcome over its three requests, and the answer checks of each. */
function record(context: RunContext, tampering: Tampering, exchanges: Exchange[]) {
  const [control, withSignature, without] = exchanges as [Exchange, Exchange, Exchange];
  const operation = control.operation.id;
  const status = (exchange: Exchange) => exchange.answer?.status ?? `nothing (${exchange.error})`;
  const controlStatus = control.answer?.status ?? 0;
  let outcome: Outcome;
  if (controlStatus < 200 || controlStatus > 299) {
    outcome = {
      check: tampering.check,
      operation,
      ok: false,
      message: `a valid request signed both ways was answered ${status(control)}, so the refusals after it prove nothing (is the key pair one that requires message signatures?)`,
      expected: '2xx',
      actual: `${status(control)} ${control.answer?.text.slice(0, 300) ?? ''}`,
    };
  } else {
    const letIn = [
      [withSignature, `${tampering.cause}`],
      [without, `${tampering.cause}, without its message signature`],
    ].find(([exchange]) => (exchange as Exchange).answer?.status !== 401) as
      | [Exchange, string]
      | undefined;
    outcome = letIn
      ? {
          check: tampering.check,
          operation,
          ok: false,
          message: `${letIn[1]} was answered ${status(letIn[0])}${(letIn[0].answer?.status ?? 500) < 300 ? ': the service let it in' : ''}`,
          expected: '401',
          actual: `${status(letIn[0])} ${letIn[0].answer?.text.slice(0, 300) ?? ''}`,
        }
      : { check: tampering.check, operation, ok: true };
  }
  const checked = withResponseChecks(context, { outcomes: [outcome], exchanges });
  const { results, traffic } = context;
  for (const each of checked.outcomes) {
    if (each.ok) {
      results.count([each]);
    } else if (!results.hasFailed(each.check, each.operation)) {
      results.count([each]);
      results.fail({
        outcome: each,
        exchanges: checked.evidence?.get(each) ?? exchanges,
        label: `a request signed both ways, then ${tampering.cause}, with and without its message signature`,
        requestsUntilCaught: traffic.used,
        shrinks: 0,
      });
    }
  }
}
