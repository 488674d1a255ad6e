import type { IDataObject } from 'n8n-workflow';

/**
 * What this n8n process knows beyond the store: which transfers its executions are sending right
 * now (a second execution of the same transfer waits for the first instead of racing it), the
 * clear answers they got (a repeat reads ALREADY_SUBMITTED with the first answer's references), and
 * the requests it sent that have no clear answer (in queue mode another process's stale write can
 * take them out of the store; this process still knows). Memory only: a restart forgets it; the
 * store keeps the record.
 */

/** The service's clear answer to a request of this process: its status and references. */
export type ConfirmedAnswer = IDataObject;

const REMEMBERED = 20_000;
const answers = new Map<string, ConfirmedAnswer>();
const unanswered = new Set<string>();
const inFlight = new Map<string, Promise<void>>();

export function confirmedAnswer(key: string): ConfirmedAnswer | undefined {
	return answers.get(key);
}

export function rememberAnswer(key: string, answer: ConfirmedAnswer) {
	unanswered.delete(key);
	answers.delete(key);
	answers.set(key, answer);
	if (answers.size > REMEMBERED) answers.delete(answers.keys().next().value as string);
}

/** A request of this process went out: until a clear answer, it may have paid. */
export function rememberSent(key: string) {
	unanswered.delete(key);
	unanswered.add(key);
	if (unanswered.size > REMEMBERED) unanswered.delete(unanswered.values().next().value as string);
}

/** This process sent it and has no clear answer: in doubt, whatever the store says now. */
export const sentWithoutAnswer = (key: string) => unanswered.has(key);

/** A clear answer that moved no money, or never sent: no longer in doubt here. */
export const forgetSent = (key: string) => void unanswered.delete(key);

/**
 * One execution at a time per transfer in this process: waits while another execution here sends
 * the same transfer, then holds the turn until the returned function is called.
 */
export async function takeTurn(key: string): Promise<() => void> {
	for (let running = inFlight.get(key); running; running = inFlight.get(key)) await running;
	let done!: () => void;
	const mine = new Promise<void>((resolve) => (done = resolve));
	inFlight.set(key, mine);
	return () => {
		if (inFlight.get(key) === mine) inFlight.delete(key);
		done();
	};
}
