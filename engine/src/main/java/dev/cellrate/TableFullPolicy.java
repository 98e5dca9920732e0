package dev.cellrate;

/**
 * What a {@link KeyedRateLimiter} does when a new key finds no free, swept or idle slot within the probe
 * bound of its shard. Every outcome has its own result code and is counted in
 * {@link KeyedRateLimiter#tableFullEvents()}.
 */
public enum TableFullPolicy
{
    /**
     * Fail closed (the default): reject with {@link Result#TABLE_FULL}. Nothing is charged anywhere.
     */
    REJECT,

    /**
     * Fail open: admit with {@link Result#ADMITTED_TABLE_FULL}. The request is not limited at all;
     * choose this only where availability beats protection.
     */
    ADMIT,

    /**
     * Charge one shared overflow cell with the same limit: admitted requests return
     * {@link Result#ADMITTED_OVERFLOW}, rejections {@link Result#REJECTED_OVERFLOW}.
     * Every key without a cell shares that one budget, so the overflow traffic as a whole is limited.
     */
    OVERFLOW
}
