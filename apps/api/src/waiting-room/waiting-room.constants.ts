/** The HMAC key of tickets and admissions (a Buffer); never of a sale's seed, which is drawn at random. */
export const WAITING_ROOM_KEY = Symbol('WAITING_ROOM_KEY');
