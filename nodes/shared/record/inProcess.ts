import type { IDataObject } from 'n8n-workflow';

/**
 * What this n8n process knows beyond the store: which transfers its executions are sending right
 * now (a second execution of the same transfer waits for the first instead of racing it), the
 * clear answers they got (a repeat reads ALREADY_SUBMITTED with the first answer's references).
 * Memory only: a restart forgets it; the store keeps the record.
 */

/** The service's clear answer to a request of this process: its status and references. */
export type ConfirmedAnswer = IDataObject;

const MAX_ANSWERS = 20_000;
const answers = new Map<string, ConfirmedAnswer>();
const inFlight = new Map<string, Promise<void>>();

export function confirmedAnswer(key: string): ConfirmedAnswer | undefined {
	return answers.get(key);
}

export function rememberAnswer(key: string, answer: ConfirmedAnswer) {
	answers.delete(key);
	answers.set(key, answer);
	if (answers.size > MAX_ANSWERS) answers.delete(answers.keys().next().value as string);
}

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
