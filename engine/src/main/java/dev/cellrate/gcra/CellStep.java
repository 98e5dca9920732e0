package dev.cellrate.gcra;

/**
 * What a front does with the outcome of {@link AtomicGcra}'s cell loop when the caller passed a holder: the
 * front supplies this one step (e.g. fill its {@code Decision} under its limit), the loop stays free of the
 * front's types. Fronts create their step once, at construction; it is called only when the holder is not
 * null, after the decision.
 *
 * @param <H> the caller-owned holder.
 */
@FunctionalInterface
public interface CellStep<H>
{
    /**
     * @param holder the caller's holder, not null.
     * @param code   the decision's code.
     * @param tatNs  the cell's TAT after the decision (unchanged if rejected).
     * @param nowNs  the time of the decision.
     */
    void decided(H holder, long code, long tatNs, long nowNs);
}
