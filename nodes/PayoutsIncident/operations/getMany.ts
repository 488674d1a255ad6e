import type { IDataObject } from 'n8n-workflow';
import type { z } from 'zod';

import { dateTime, itemSchema, oneOf, SERVICE_TIME_FORMAT, text } from '../../shared/input/rules';
import type { Clock, PayoutOperation } from '../../shared/types';
import { additionalFields } from '../../shared/input/describe';
import { simplified, simplifyProperties, simplifyRule } from '../../shared/output/simplify';
import { endpoints } from '../../shared/transport/endpoints';

const STATUSES = ['ALL', 'RESOLVED', 'UNRESOLVED'] as const;
const MAX_WINDOW_DAYS = 7;
const MAX_AGE_DAYS = 90;

/** Which bank, which transfer mode, how bad, since when and whether it is over. */
const SIMPLIFIED = [
	'id',
	'entityCode',
	'entityName',
	'mode',
	'impact',
	'isResolved',
	'isScheduled',
	'createdAt',
	'resolvedAt',
] as const;

/**
 * The incident window of the interface document: start not after end, at most 7 days, start
 * within the last 90 days. A missing end is the end of today and a missing start the start of
 * today, as the service defaults them, in the workflow's timezone.
 */
function schema(clock: Clock) {
	return itemSchema(
		{
			status: oneOf(STATUSES, 'UNRESOLVED'),
			startTime: dateTime(clock),
			endTime: dateTime(clock),
			entityCode: text({}),
			simplify: simplifyRule,
		},
		({ startTime, endTime }, fail) => {
			const start = startTime ?? clock.now.startOf('day');
			const end = endTime ?? clock.now.endOf('day');
			if (start > end)
				fail(
					'startTime',
					`must not be after 'End Time'${endTime ? '' : ' (the end of today when empty)'}`,
				);
			else if (end.diff(start, 'days').days > MAX_WINDOW_DAYS)
				fail(
					endTime ? 'endTime' : 'startTime',
					`must be at most ${MAX_WINDOW_DAYS} days from 'Start Time' to 'End Time'`,
				);
			if (start < clock.now.minus({ days: MAX_AGE_DAYS }))
				fail('startTime', `must be within the last ${MAX_AGE_DAYS} days`);
		},
	).transform(({ startTime, endTime, ...rest }) => ({
		...rest,
		// Only what the user set is sent; the service applies its own defaults to the rest.
		...(startTime && { startTime: startTime.toFormat(SERVICE_TIME_FORMAT) }),
		...(endTime && { endTime: endTime.toFormat(SERVICE_TIME_FORMAT) }),
	}));
}

export const getMany: PayoutOperation<z.output<ReturnType<typeof schema>>> = {
	value: 'getMany',
	api: 'getIncidents',
	name: 'Get Many Incidents',
	description: 'List bank incidents (outages or degradations) that affect transfer modes',
	action: 'Get many incidents',
	movesMoney: false,
	host: 'payout',
	properties: [
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: [
				{ name: 'All', value: 'ALL' },
				{ name: 'Resolved', value: 'RESOLVED' },
				{ name: 'Unresolved', value: 'UNRESOLVED' },
			],
			default: 'UNRESOLVED',
			description: 'Which incidents to list',
		},
		...simplifyProperties(SIMPLIFIED),
		additionalFields([
			{
				displayName: 'End Time',
				name: 'endTime',
				type: 'dateTime',
				default: '',
				description:
					"End of the time range, at most 7 days after 'Start Time'. Default: the end of today. Sent as yyyy-mm-dd hh:mm:ss in the workflow's timezone (the service does not document its own).",
			},
			{
				displayName: 'Entity Code',
				name: 'entityCode',
				type: 'string',
				default: '',
				placeholder: 'e.g. HDFC',
				description: 'Code of the bank whose incidents are wanted',
			},
			{
				displayName: 'Start Time',
				name: 'startTime',
				type: 'dateTime',
				default: '',
				description:
					"Start of the time range, within the last 90 days. Default: the start of today. Sent as yyyy-mm-dd hh:mm:ss in the workflow's timezone (the service does not document its own).",
			},
		]),
	],
	schema,
	// 'Simplify' shapes the output only: it is not a query parameter of the service.
	request: (query) =>
		endpoints.getIncidents(
			Object.fromEntries(Object.entries(query).filter(([name]) => name !== 'simplify')),
		),
	output: (answer, { simplify }) => {
		const incidents = Array.isArray(answer.data?.incidents)
			? (answer.data.incidents as IDataObject[])
			: [];
		return simplify ? incidents.map((incident) => simplified(incident, SIMPLIFIED)) : incidents;
	},
};
