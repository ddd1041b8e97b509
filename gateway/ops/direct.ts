/** Direct card payment (`/v1/authorise` without `payment_method`): XML `respon`, signed. */
import { str, type Gateway, type GatewayRequest, type OperationHandler, type Refusal } from '../context.js';
import { signResponse } from '../errors.js';
import type { Reply } from '../reply.js';
import { cardProblem, createPayment, paymentNeeds, readCard, type CardData } from './payment.js';

/** The stored card a request's `token_id` names, for this account. */
function storedCard(gw: Gateway, req: GatewayRequest): CardData | undefined {
  const token = gw.store.token(str(req.body, 'token_id') ?? '');
  if (
    !token ||
    token.merchantId !== req.account.merchant.merchantId ||
    token.accountId !== req.account.account.accountId
  )
    return undefined;
  return { number: token.cardNumber, expiryMonth: token.expiryMonth, expiryYear: token.expiryYear };
}

const usesToken = (req: GatewayRequest) => (str(req.body, 'token_id') ?? '') !== '';

/** The direct payment operation. */
export const directPayment: OperationHandler = {
  refusals(req, gw) {
    const out: Refusal[] = paymentNeeds(req.body);
    if (usesToken(req)) {
      if (!storedCard(gw, req))
        out.push({ kind: gw.profile.payments.token.unknownToken, reason: 'token_id names no stored card' });
    } else {
      const problem = cardProblem(gw, req.body);
      if (problem) out.push({ kind: 'invalidInput', reason: problem });
    }
    return out;
  },
  run(req, gw): Reply {
    const card = usesToken(req) ? storedCard(gw, req) : readCard(gw, req.body);
    const { result } = createPayment(gw, {
      source: 'authoriseDirect',
      account: req.account,
      body: req.body,
      card,
      securityCode: usesToken(req) ? undefined : str(req.body, gw.profile.fields.card.securityCode),
      tokenId: usesToken(req) ? str(req.body, 'token_id') : undefined,
    });
    return {
      kind: 'xml',
      status: 200,
      root: req.op.xmlRoot!,
      body: signResponse(gw, 'authoriseDirect', result, req.account.secret),
    };
  },
};
