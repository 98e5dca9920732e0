package dev.cellrate.spring;

/**
 * What a finished response costs under mode charge-after.
 */
final class ChargeAfter
{
    private ChargeAfter()
    {
    }

    /**
     * @param limit      the limit.
     * @param status     the response status.
     * @param costHeader the cost header's value, or null.
     * @return the permits to charge: the cost header's value when the limit has one and it is a non-negative
     * integer of at most 18 digits (else 1), otherwise 1 if the status is charged, else 0.
     */
    static long cost(final NamedLimit limit, final int status, final String costHeader)
    {
        if (null != limit.costHeader && null != costHeader)
        {
            return parse(costHeader);
        }
        return status >= 0 && status < limit.chargeStatuses.length && limit.chargeStatuses[status] ? 1 : 0;
    }

    /**
     * Debit what a finished response costs (see {@link #cost}) from the key's local cell.
     *
     * @param limit      the limit.
     * @param status     the response status.
     * @param costHeader the cost header's value, or null.
     * @param longKey    the key, when {@code stringKey} is null.
     * @param stringKey  the key as text, or null.
     */
    static void charge(
        final NamedLimit limit, final int status, final String costHeader, final long longKey,
        final CharSequence stringKey)
    {
        final long cost = cost(limit, status, costHeader);
        if (cost > 0)
        {
            final long laterNs = limit.clock.nanoTime();
            if (null == stringKey)
            {
                limit.local.debit(longKey, cost, laterNs);
            }
            else
            {
                limit.local.debit(stringKey, cost, laterNs);
            }
        }
    }

    static long parse(final String v)
    {
        final int length = v.length();
        if (0 == length || length > 18)
        {
            return 1;
        }
        long cost = 0;
        for (int i = 0; i < length; i++)
        {
            final char c = v.charAt(i);
            if (c < '0' || c > '9')
            {
                return 1;
            }
            cost = cost * 10 + (c - '0');
        }
        return cost;
    }
}
