package dev.cellrate.testing;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one differential tally of the engine's tests: each decision of cellrate is checked against a reference
 * (an exact model or a peer library) on the same request; the tally counts decisions, the reference's
 * admissions and the mismatches, keeps the first mismatch's description, prints one summary line and asserts.
 * Not thread-safe: one per test.
 */
public final class Differential
{
    private final String name;
    private long decisions;
    private long admitted;
    private long mismatches;
    private String firstMismatch;

    /**
     * @param name what is compared, for the summary line (e.g. "Bucket4j greedy").
     */
    public Differential(final String name)
    {
        this.name = name;
    }

    /**
     * One admit/reject decision.
     *
     * @param expected the reference's decision (counted as an admission if true).
     * @param actual   cellrate's decision.
     * @param where    describes the request; called only for the first mismatch.
     * @return true iff they agree.
     */
    public boolean check(final boolean expected, final boolean actual, final Supplier<String> where)
    {
        decisions++;
        admitted += expected ? 1 : 0;
        return agree(expected == actual, where);
    }

    /**
     * One decision compared by value (a code, a delay, a colour).
     *
     * @param expected the reference's value.
     * @param admittedByReference whether the reference admitted (for the tally).
     * @param actual   cellrate's value.
     * @param where    describes the request; called only for the first mismatch.
     * @return true iff they agree.
     */
    public boolean check(
        final long expected, final boolean admittedByReference, final long actual, final Supplier<String> where)
    {
        decisions++;
        admitted += admittedByReference ? 1 : 0;
        return agree(expected == actual, where);
    }

    private boolean agree(final boolean agree, final Supplier<String> where)
    {
        if (!agree)
        {
            mismatches++;
            if (null == firstMismatch)
            {
                firstMismatch = where.get();
            }
        }
        return agree;
    }

    /**
     * @return decisions checked.
     */
    public long decisions()
    {
        return decisions;
    }

    /**
     * @return decisions the reference admitted.
     */
    public long admitted()
    {
        return admitted;
    }

    /**
     * @return decisions that differed.
     */
    public long mismatches()
    {
        return mismatches;
    }

    /**
     * @return the first mismatch's description, or null.
     */
    public String firstMismatch()
    {
        return firstMismatch;
    }

    /**
     * Print "{@code name: decisions=D admitted=A mismatches=M}" plus {@code extra} (for the build log).
     *
     * @param extra appended as is (may be empty).
     * @return this.
     */
    public Differential print(final String extra)
    {
        System.out.println(name + ": decisions=" + decisions + " admitted=" + admitted + " mismatches=" + mismatches +
            extra);
        return this;
    }

    /**
     * Assert that at least {@code minDecisions} were checked and the reference admitted between a fifth and
     * four fifths of them (a trace mix that exercises both answers).
     *
     * @param minDecisions the least number of decisions.
     * @return this.
     */
    public Differential assertMix(final long minDecisions)
    {
        assertTrue(decisions >= minDecisions, name + ": decisions " + decisions);
        assertTrue(admitted > decisions / 5 && admitted < decisions * 4 / 5, name + ": trace mix " + admitted);
        return this;
    }

    /**
     * Assert that no decision differed.
     */
    public void assertAgreed()
    {
        assertEquals(0, mismatches, name + ": first mismatch: " + firstMismatch);
    }
}
