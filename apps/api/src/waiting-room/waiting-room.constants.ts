/** The HMAC key of tickets, admissions and the sale seeds (a Buffer). */
export const WAITING_ROOM_KEY = Symbol('WAITING_ROOM_KEY');
