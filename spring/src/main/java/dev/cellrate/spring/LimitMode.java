package dev.cellrate.spring;

/** What the web filters do with a limit's decision. */
public enum LimitMode
{
    /** A rejected request is answered 429. */
    ENFORCE,
    /** Every request goes through; the ones enforcing would reject are counted and marked. */
    DRY_RUN,
    /** A request over the rate is held until its turn (at most max-delay), then goes through. */
    SHAPE,
    /** A request is let through while its key has credit; the response's status or cost header charges it. */
    CHARGE_AFTER
}
