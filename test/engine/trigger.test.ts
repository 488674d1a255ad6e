/**
 * The incident trigger against the sandbox: each new incident and each resolution starts exactly
 * one run, across polls and across a restart (static data saved and loaded as n8n does); the
 * first poll replays nothing unless asked; the query respects the service's window rules.
 */
import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { windowsFrom } from '../../nodes/PayoutsIncidentTrigger/incidentEvents';
import { runPoll, stopEngineTimers } from '../../harness/engine';
import { useSandbox } from '../../harness/sandbox';

afterAll(stopEngineTimers);

const service = useSandbox();

const both = { events: ['new', 'resolved'], filters: {}, options: {} };
const ids = (items: Array<{ json: IDataObject }>) =>
	items.map((item) => `${item.json.event}:${item.json.id}`);

function addIncident(overrides: IDataObject = {}) {
	return service.sandbox.addIncident({
		mode: 'IMPS',
		impact: 'HIGH',
		entityCode: 'BANKX',
		entityName: 'Bank X',
		isScheduled: false,
		...overrides,
	});
}

test('the first poll records what exists and starts no run', async () => {
	const { items, staticData } = await runPoll(both, service.credentials());
	expect(items).toEqual([]);
	const seen = (staticData['node:Incident Trigger'] as IDataObject).seen as IDataObject;
	expect(Object.keys(seen).length).toBeGreaterThan(0);
});

test('with Emit Existing on, the first poll reports the last 7 days', async () => {
	const { items } = await runPoll(
		{ ...both, options: { emitExisting: true } },
		service.credentials(),
	);
	expect(items.length).toBeGreaterThan(0);
	for (const item of items)
		expect(
			DateTime.fromISO(String(item.json.createdAt)) >=
				DateTime.utc().minus({ days: 7, minutes: 1 }),
		).toBe(true);
});

test('a new incident starts one run, once, also after a restart; its resolution starts one more', async () => {
	const first = await runPoll(both, service.credentials());
	const incident = addIncident();

	const second = await runPoll(both, service.credentials(), { staticData: first.staticData });
	expect(ids(second.items)).toEqual([`new:${incident.id}`]);
	expect(second.items[0].json).toMatchObject({
		event: 'new',
		id: incident.id,
		mode: 'IMPS',
		isResolved: false,
	});

	// A restart: n8n loads the saved static data into a new workflow object.
	const saved = JSON.parse(JSON.stringify(second.staticData)) as IDataObject;
	const third = await runPoll(both, service.credentials(), { staticData: saved });
	expect(third.items).toEqual([]);

	service.sandbox.resolveIncident(incident.id);
	const fourth = await runPoll(both, service.credentials(), { staticData: third.staticData });
	expect(ids(fourth.items)).toEqual([`resolved:${incident.id}`]);
	const fifth = await runPoll(both, service.credentials(), { staticData: fourth.staticData });
	expect(fifth.items).toEqual([]);
});

test('filters: mode, impact, scheduled and entity code', async () => {
	const start = await runPoll(both, service.credentials());
	const wanted = addIncident({
		mode: 'UPI',
		impact: 'HIGH',
		isScheduled: false,
		entityCode: 'BANKY',
	});
	addIncident({ mode: 'NEFT', impact: 'HIGH', isScheduled: false, entityCode: 'BANKY' });
	addIncident({ mode: 'UPI', impact: 'LOW', isScheduled: false, entityCode: 'BANKY' });
	addIncident({ mode: 'UPI', impact: 'HIGH', isScheduled: true, entityCode: 'BANKY' });
	addIncident({ mode: 'UPI', impact: 'HIGH', isScheduled: false, entityCode: 'BANKZ' });
	const filters = {
		mode: 'upi, imps',
		impact: 'HIGH',
		scheduled: 'unscheduled',
		entityCode: 'BANKY',
	};
	service.sandbox.clearRequests();
	const { items } = await runPoll({ ...both, filters }, service.credentials(), {
		staticData: start.staticData,
	});
	expect(ids(items)).toEqual([`new:${wanted.id}`]);
	expect(service.sandbox.requests().every((request) => request.query.entityCode === 'BANKY')).toBe(
		true,
	);
});

test('only resolutions, when only they are wanted', async () => {
	const start = await runPoll({ ...both, events: ['resolved'] }, service.credentials());
	const incident = addIncident();
	const afterNew = await runPoll({ ...both, events: ['resolved'] }, service.credentials(), {
		staticData: start.staticData,
	});
	expect(afterNew.items).toEqual([]);
	service.sandbox.resolveIncident(incident.id);
	const afterResolution = await runPoll({ ...both, events: ['resolved'] }, service.credentials(), {
		staticData: afterNew.staticData,
	});
	expect(ids(afterResolution.items)).toEqual([`resolved:${incident.id}`]);
});

test('a failed poll changes nothing: the next one reports the event', async () => {
	const start = await runPoll(both, service.credentials());
	const incident = addIncident();
	service.sandbox.configure({ faults: [{ fault: 'error-520', times: 1 }] });
	await expect(
		runPoll(both, service.credentials(), { staticData: start.staticData }),
	).rejects.toThrow(/Listing incidents failed/);
	const retry = await runPoll(both, service.credentials(), { staticData: start.staticData });
	expect(ids(retry.items)).toEqual([`new:${incident.id}`]);
});

test("the editor's test fetch returns the latest incident and remembers nothing", async () => {
	const latest = addIncident({ mode: 'RTGS' });
	const { items, staticData } = await runPoll(both, service.credentials(), { mode: 'manual' });
	expect(items).toHaveLength(1);
	expect(items[0].json).toMatchObject({ id: latest.id, event: 'new' });
	expect(staticData['node:Incident Trigger'] ?? {}).toEqual({});
});

test('after a long gap every query keeps to 7 days and the last 90 days', async () => {
	const now = DateTime.utc();
	const longAgo = {
		'node:Incident Trigger': {
			lastPollAt: now.minus({ days: 200 }).toISO(),
			seen: {},
			resolved: {},
		},
	};
	await runPoll(both, service.credentials(), { staticData: longAgo });
	const windows = service.sandbox.requests().map((request) => ({
		start: DateTime.fromSQL(String(request.query.startTime), { zone: 'UTC' }),
		end: DateTime.fromSQL(String(request.query.endTime), { zone: 'UTC' }),
	}));
	expect(windows.length).toBe(13);
	for (const { start, end } of windows) {
		expect(end.diff(start, 'days').days).toBeLessThanOrEqual(7);
		expect(start >= now.minus({ days: 90 })).toBe(true);
	}
	// The sandbox applies the service's window rules: none of these queries was refused.
	expect(service.sandbox.requests()).toHaveLength(13);
});

test("windowsFrom reaches 26 hours past both ends, on the workflow's clock, and says what it may skip", () => {
	const now = DateTime.now().setZone('America/New_York');
	// The start as the trigger reads it back from its saved ISO time: in another zone.
	const { windows, skipped } = windowsFrom(now.minus({ hours: 1 }).toUTC(), now, now);
	expect(windows).toHaveLength(1);
	expect(windows[0].start.equals(now.minus({ hours: 27 }))).toBe(true);
	expect(windows[0].end.equals(now.plus({ hours: 26 }))).toBe(true);
	expect(skipped).toBeUndefined();

	const long = windowsFrom(now.minus({ days: 100 }), now, now);
	expect(long.skipped?.start.toMillis()).toBe(now.minus({ days: 100 }).toMillis());
	expect(long.windows[0].start > now.minus({ days: 90 }).plus({ hours: 26 })).toBe(true);
	expect(long.windows.at(-1)?.end.equals(now.plus({ hours: 26 }))).toBe(true);
	for (const window of long.windows)
		expect(window.end.diff(window.start, 'days').days).toBeLessThanOrEqual(7);
});

/**
 * The document gives `startTime` and `endTime` as "yyyy-mm-dd hh:mm:ss" without a zone; the node
 * sends them on the workflow's clock, and the service may read them on another. The
 * sandbox reads them in its `timezone`. Each case polls as n8n does, through the engine, over HTTP.
 */
describe('a service that reads the query in another timezone', () => {
	// Only this bank's incidents: no older open incident widens the listing, as for a user whose
	// only open incident is the one just opened.
	const oneBank = { ...both, filters: { entityCode: 'BANKX' } };
	const cases = [
		{ service: 'Asia/Kolkata', workflow: 'UTC' },
		{ service: 'Asia/Kolkata', workflow: 'America/New_York' },
		{ service: 'UTC-8', workflow: 'UTC' },
		{ service: 'UTC-8', workflow: 'America/New_York' },
		// The extremes: 26 hours apart, either way (a one-day margin is not enough).
		{ service: 'Pacific/Kiritimati', workflow: 'Etc/GMT+12' },
		{ service: 'Etc/GMT+12', workflow: 'Pacific/Kiritimati' },
	];

	describe.each(cases)(
		'service in $service, workflow in $workflow',
		({ service: zone, workflow }) => {
			beforeEach(() => service.sandbox.configure({ timezone: zone }));
			const poll = (parameters: Record<string, unknown>, staticData?: IDataObject) =>
				runPoll(parameters, service.credentials(), { timezone: workflow, staticData });

			test('an incident opened now is reported by the next poll, its resolution by the one after, each once (also after a restart)', async () => {
				const first = await poll(oneBank);
				expect(first.items).toEqual([]);
				const incident = addIncident();
				const second = await poll(oneBank, first.staticData);
				expect(ids(second.items)).toEqual([`new:${incident.id}`]);
				service.sandbox.resolveIncident(incident.id);
				const third = await poll(oneBank, second.staticData);
				expect(ids(third.items)).toEqual([`resolved:${incident.id}`]);
				// A restart: n8n loads the saved static data; the wider listing returns the incident again.
				const restarted = await poll(
					oneBank,
					JSON.parse(JSON.stringify(third.staticData)) as IDataObject,
				);
				expect(restarted.items).toEqual([]);
			});
		},
	);

	// Only a service ahead of the workflow reads the oldest start as older than meant; one behind
	// reads it as later, which the 90-day rule never refuses.
	describe.each(
		cases.filter(({ service: zone, workflow }) => offsetHours(zone) > offsetHours(workflow)),
	)('service in $service, ahead of the workflow in $workflow', ({ service: zone, workflow }) => {
		beforeEach(() => service.sandbox.configure({ timezone: zone }));

		test('the first poll after months switched off is not refused by the 90-day rule, and the next repeats nothing', async () => {
			const monthsAgo = {
				'node:Incident Trigger': {
					lastPollAt: DateTime.utc().minus({ days: 200 }).toISO(),
					seen: {},
					resolved: {},
				},
			};
			const first = await runPoll(both, service.credentials(), {
				timezone: workflow,
				staticData: monthsAgo,
			});
			expect(first.items.length).toBeGreaterThan(0);
			expect(new Set(ids(first.items)).size).toBe(first.items.length);
			const next = await runPoll(both, service.credentials(), {
				timezone: workflow,
				staticData: first.staticData,
			});
			expect(next.items).toEqual([]);
		});
	});
});

function offsetHours(zone: string) {
	return DateTime.utc().setZone(zone).offset / 60;
}
