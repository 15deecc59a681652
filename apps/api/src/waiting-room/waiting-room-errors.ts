import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import type { JoinWorkChallenge } from './join-work/join-work';

export const noWaitingRoom = (productId: string) =>
  new AppException(ErrorCode.NotFound, `product ${productId} is not sold through a waiting room`);
export const ticketInvalid = () =>
  new AppException(ErrorCode.TicketInvalid, 'the ticket is not one this service issued for this product');
export const notAdmitted = (why: string) =>
  new AppException(ErrorCode.NotAdmitted, `this product is sold through its waiting room: ${why}`);
export const queueNotOpen = () =>
  new AppException(ErrorCode.SaleNotActive, 'the waiting room of this product is not open now');
export const soldOutAtJoin = (productId: string) =>
  new AppException(ErrorCode.SoldOut, `product ${productId} is sold out`);
export const joinWorkRequired = (productId: string) =>
  new AppException(
    ErrorCode.JoinWorkRequired,
    `joining this queue needs a solved proof of work: GET /products/${productId}/queue/challenge, then join with { "work": { "challenge", "nonce", "solution" } }`,
  );
export const joinWorkInvalid = () =>
  new AppException(
    ErrorCode.JoinWorkInvalid,
    'the proof of work is wrong, expired, used already, or not solved for this user and product; solve the current challenge again',
  );
export const joinClaimRequired = (claim: string) =>
  new AppException(ErrorCode.JoinClaimRequired, `joining this queue needs the token claim "${claim}"`);
/**
 * Over waitingRoom.joinsPerAddress: a lock-out for nobody. With `challenge`, the body carries the
 * work that takes a ticket now (as the challenge route would serve it); else only waiting helps.
 */
export const joinsPerAddressSpent = (retryAfterS: number, challenge?: JoinWorkChallenge) =>
  challenge
    ? new AppException(
        ErrorCode.RateLimited,
        'this client address holds as many tickets of this sale as it may without work (waitingRoom.joinsPerAddress): ' +
          `join again with "work" solved for this body's challenge (${challenge.squarings} squarings), ` +
          'or retry after Retry-After',
        retryAfterS,
        { challenge },
      )
    : new AppException(
        ErrorCode.RateLimited,
        'this client address holds as many tickets of this sale as it may (waitingRoom.joinsPerAddress)',
        retryAfterS,
      );
export const noJoinWork = (productId: string) =>
  new AppException(ErrorCode.NotFound, `joining the queue of product ${productId} needs no proof of work`);
