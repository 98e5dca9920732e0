package dev.cellrate.gcra;

import org.agrona.concurrent.AtomicBuffer;

/**
 * Undoing one GCRA charge on a TAT word, exactly or not at all.
 * <p>
 * Rule: a charge that read {@code TAT0} at time {@code t} and wrote {@code W = max(TAT0, t) + I} is undone by
 * one CAS from {@code W} back to {@code W - I = max(TAT0, t)}. If the word no longer holds {@code W}, the
 * refund is abandoned and the charge stays (it "leaks": the cell admits up to I ns of work less until it is
 * idle again). The refunded value is never below {@code max(TAT0, t)}.
 * <p>
 * Why not subtract I from whatever the word holds? Because a later charge can have <em>absorbed</em> ours.
 * With T = 10, &tau; = 10: a charge at t = 0 on an idle cell writes 10; a request at t = 5 sees lag 5 and
 * writes 20. Subtracting 10 gives 10, but had our charge never happened the state would be 15 (the request
 * at 5 alone). A third request at 10 then sees lag 0 and is admitted where the true state (lag 5, then
 * 15 + 10 = 25 &gt; 20) would reject it: three admissions in [5, 10] against a curve of 2 + 0.5. The gap is
 * invisible from the word, so the only refund that is always safe is the exact one below.
 * <p>
 * Proof that a successful refund is exact. Charges only raise the word ({@code max(w, t) + I > w}); a
 * refund lowers it from its charge's {@code W} to {@code W - I}, which is at least the value the charge read.
 * By induction, while a charge Z is neither refunded nor abandoned the word is at least {@code W_Z}, and
 * after any charge K that lands later and is kept it is at least {@code W_K > W_Z} forever. So the CAS from
 * {@code W_Z} succeeds only if every charge landed after Z was itself refunded: the word then reflects Z
 * alone on top of the kept charges, and restoring {@code max(TAT0, t)} is exactly "Z never happened" for
 * every request at time &ge; t (and stricter for earlier-stamped ones). A refund of a charge below Z can
 * never succeed while Z is pending (its W is below the word).
 * <p>
 * Never over-admits: let S be the GCRA state of the kept charges in CAS order (pending ones counted). The
 * word is always &ge; S: a charge maps both through the same monotone {@code max(., t) + I}; a successful
 * refund of Z sets the word to {@code max(TAT0, t) >= TAT0 >= S} of the charges kept before Z, which are the
 * only kept ones left. Conformance only gets harder as the state rises, so each kept request also conforms
 * against S: the kept sequence is a GCRA-conforming sequence. A concurrent observer may see a charge that
 * is later refunded and be rejected for it: transient under-admission only.
 */
public final class Refund
{
    private Refund()
    {
    }

    /**
     * @param buffer      the buffer holding the word.
     * @param offset      the word's offset.
     * @param chargedNs   the value the charge wrote, {@code W}.
     * @param incrementNs the increment it charged, {@code I}.
     * @return true if the charge was undone, false if it stays (another charge was kept on top of it).
     */
    public static boolean undo(
        final AtomicBuffer buffer, final int offset, final long chargedNs, final long incrementNs)
    {
        return buffer.compareAndSetLong(offset, chargedNs, chargedNs - incrementNs);
    }
}
