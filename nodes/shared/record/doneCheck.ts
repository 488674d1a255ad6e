import { marks } from './marks';
import type { NodeStore } from './store';
import type { RecorderSettings, Row, Verdict } from './types';

/**
 * Rows a run finds claimed before it: their `done` mark tells answered from unanswered. The store
 * only tests-and-sets, so asking about `done` records it: the check marks `checking` in the same
 * call and, in the next one, forgets the `done` marks it recorded wrongly and `checking`. If a
 * crash comes between the two, `checking` stays, and every later check treats a `done` as
 * unproven: card and standard rows are sent again (the service answers for them), internal rows
 * read UNKNOWN, until a run has settled every row it found so (Options > Dashboard Outcomes, or
 * the service's answer), which forgets `checking` at its end.
 */
export class DoneCheck {
	/** A check found `checking` recorded: the answers it found are unproven. */
	private tainted = false;
	/** Unproven rows sent again whose answer has not come yet. */
	private unprovenLeft = 0;
	/** An unproven row stays UNKNOWN in this run: the interrupted check's mark must stay. */
	private unprovenStays = false;

	constructor(
		private readonly store: NodeStore,
		private readonly settings: Pick<RecorderSettings, 'refusesDuplicates' | 'warn'>,
	) {}

	async check(rows: Row[]): Promise<Array<{ row: Row; verdict: Verdict; recordDone?: true }>> {
		// A "not paid" line is acted on once: asking whether it was used records that it is now.
		const notPaid = (row: Row) => (row.planned.dashboard?.paid === false ? marks.notPaidUsed(row.planned.transferId, row.planned.print, row.planned.dashboard.look) : undefined);
		const lines = rows.map(notPaid).filter((mark): mark is string => mark !== undefined);
		const { value: seen } = await this.store.mark([marks.checking, ...rows.map((row) => row.done), ...lines]);
		if (seen.has(marks.checking) && !this.tainted) {
			this.tainted = true;
			this.settings.warn("Payouts: an earlier check of this node's record was interrupted; the answers it could have recorded wrongly are treated as unproven until the rows are settled.");
		}
		const unanswered = rows.filter((row) => !seen.has(row.done));
		// Forget what the question recorded (and `checking`, unless an earlier check left it).
		await this.store.forget([...unanswered.map((row) => row.done), ...(this.tainted ? [] : [marks.checking])]);
		return rows.map((row) => {
			if (seen.has(row.done) && !this.tainted) return { row, verdict: { kind: 'answered' } };
			// Unanswered, or unproven: what the dashboard says settles it; otherwise the service does
			// (card and standard are sent again) or nobody may guess (internal: UNKNOWN).
			const { dashboard } = row.planned;
			const usedLine = dashboard?.paid === false && seen.has(notPaid(row) as string);
			row.checkedUnproven = this.tainted;
			if (dashboard?.paid) return { row, verdict: { kind: 'answered', dashboard: true }, recordDone: true };
			if ((dashboard && !usedLine) || this.settings.refusesDuplicates) {
				if (this.tainted) this.unprovenLeft++;
				return { row, verdict: { kind: 'send', resent: dashboard === undefined || usedLine } };
			}
			if (this.tainted) this.unprovenStays = true;
			const nextLook = usedLine && dashboard?.paid === false ? dashboard.look + 1 : undefined;
			return { row, verdict: { kind: 'inDoubt', unproven: seen.has(row.done), nextLook } };
		});
	}

	/** A row this check sent again was answered or refused: settled. */
	settled(row: Row) {
		if (row.verdict?.kind === 'send' && this.tainted && row.checkedUnproven) this.unprovenLeft--;
	}

	/** Every row an interrupted check left unproven was settled in this run: `checking` can go. */
	get clearable(): boolean {
		return this.tainted && this.unprovenLeft === 0 && !this.unprovenStays;
	}
}
