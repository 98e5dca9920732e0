package dev.cellrate.table.mapped;

import dev.cellrate.table.TableLayout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.UUID;

/**
 * The time base of a keyed-table file: what its TAT words mean, to every process and across restarts.
 * <p>
 * <b>Within one boot.</b> A TAT is a value of {@link System#nanoTime()}, which on Linux is
 * {@code CLOCK_MONOTONIC}: one clock for every process of the host (of one time namespace), never stepped by
 * wall-clock changes, and not reset when a process restarts. So a TAT written by one process, or by an earlier
 * life of the same process, means the same instant to every reader, and a restart on the same boot changes no
 * word: a key gets exactly what GCRA allows over both lives. The file records the boot
 * ({@code /proc/sys/kernel/random/boot_id}) and the time namespace's monotonic offset
 * ({@code /proc/self/timens_offsets}); a process whose time namespace differs is refused, since its
 * {@code nanoTime} is another clock.
 * <p>
 * <b>Across a reboot.</b> {@code CLOCK_MONOTONIC} restarts near 0, so the first process of a new boot rebases
 * every word before anyone decides on it. The file holds an anchor, a pair (monotonic, wall) read together on the
 * boot that wrote the words; the wall-clock instant of a TAT is {@code wall_A + (tat - mono_A)} and the rebased
 * TAT is that instant on the new boot's monotonic clock: {@code tat + delta} with
 * {@code delta = (mono_now - wall_now) - (mono_A - wall_A)} ({@link #rebaseDeltaNs}), capped at
 * {@code mono_now + 2 (tau + T)} (the deepest a key can be: an empty bucket and a debit's full burst of debt) and
 * floored at a fresh slot
 * ({@link #rebasedTatNs}). The downtime a key is credited with is what the wall clock says passed. Guarantee: a
 * key gets at most what it had left plus what the wall clock's forward error since the anchor
 * ({@code Δ}: a forward step, or a reboot with a clock that runs ahead) grants, i.e. at most
 * {@code floor(Δ / T)} permits more than exact GCRA, and never more than a full burst. A wall clock that is
 * behind only makes keys wait longer (at most as long as the deepest a key can be).
 */
final class TimeBase
{
    /** Where Linux publishes the boot's random id. */
    static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    /** Where Linux publishes the time namespace's clock offsets. */
    static final Path TIMENS_OFFSETS = Path.of("/proc/self/timens_offsets");

    final long bootIdHi;
    final long bootIdLo;
    final long timeNamespaceOffsetNs;

    TimeBase(final long bootIdHi, final long bootIdLo, final long timeNamespaceOffsetNs)
    {
        this.bootIdHi = bootIdHi;
        this.bootIdLo = bootIdLo;
        this.timeNamespaceOffsetNs = timeNamespaceOffsetNs;
    }

    /**
     * @return this process's boot and time namespace.
     * @throws IllegalStateException if the boot id cannot be read (a host other than Linux): a file whose
     *                               words cannot be placed in time is never opened.
     */
    static TimeBase current()
    {
        final String text;
        try
        {
            text = Files.readString(BOOT_ID, StandardCharsets.US_ASCII).trim();
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new IllegalStateException("a mapped keyed table needs the boot id at " + BOOT_ID +
                " (Linux) to tell a restart from a reboot, and it cannot be read: " + ex, ex);
        }
        final UUID id;
        try
        {
            id = UUID.fromString(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalStateException("the boot id at " + BOOT_ID + " is not a UUID: '" + text + "'", ex);
        }
        return new TimeBase(id.getMostSignificantBits(), id.getLeastSignificantBits(), monotonicOffsetNs());
    }

    /**
     * @return the monotonic offset of this process's time namespace (0 without time namespaces).
     */
    static long monotonicOffsetNs()
    {
        if (!Files.exists(TIMENS_OFFSETS))
        {
            return 0;
        }
        try
        {
            for (final String line : Files.readAllLines(TIMENS_OFFSETS, StandardCharsets.US_ASCII))
            {
                final String[] fields = line.trim().split("\\s+");
                if (fields.length == 3 && ("monotonic".equals(fields[0]) || "1".equals(fields[0])))
                {
                    return Long.parseLong(fields[1]) * 1_000_000_000L + Long.parseLong(fields[2]);
                }
            }
            return 0;
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new IllegalStateException("cannot read the time namespace's offsets at " + TIMENS_OFFSETS +
                ": " + ex, ex);
        }
    }

    /**
     * @param other another time base.
     * @return whether both are the same boot.
     */
    boolean sameBoot(final TimeBase other)
    {
        return bootIdHi == other.bootIdHi && bootIdLo == other.bootIdLo;
    }

    /**
     * @return the boot id as Linux prints it.
     */
    String bootId()
    {
        return new UUID(bootIdHi, bootIdLo).toString();
    }

    /**
     * @return the wall clock in ns since the epoch.
     */
    static long wallNowNs()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /**
     * The shift that moves a TAT from the anchor's boot onto this boot's monotonic clock.
     *
     * @param anchorMonoNs {@code mono_A}, the old boot's monotonic reading.
     * @param anchorWallNs {@code wall_A}, the wall clock read with it.
     * @param monoNowNs    this boot's monotonic clock now.
     * @param wallNowNs    the wall clock now.
     * @return {@code (mono_now - wall_now) - (mono_A - wall_A)}, saturated.
     */
    static long rebaseDeltaNs(
        final long anchorMonoNs, final long anchorWallNs, final long monoNowNs, final long wallNowNs)
    {
        return saturatedSubtract(saturatedSubtract(monoNowNs, wallNowNs), saturatedSubtract(anchorMonoNs, anchorWallNs));
    }

    /**
     * A word of the old boot on the new boot's clock. Conservative by construction: never above {@code capNs}
     * (an empty bucket at the rebase), never below a fresh slot.
     *
     * @param tatNs   the stored word.
     * @param deltaNs from {@link #rebaseDeltaNs}.
     * @param capNs   {@code mono_now + 2 (tau + T)}.
     * @return the rebased word: {@code capNs} for a slot caught mid-reclaim, else
     * {@code clamp(tat + delta, FRESH_SLOT_TAT_NS, capNs)}.
     */
    static long rebasedTatNs(final long tatNs, final long deltaNs, final long capNs)
    {
        if (TableLayout.RECLAIMING == tatNs)
        {
            return capNs;
        }
        if (tatNs <= TableLayout.FRESH_SLOT_TAT_NS)
        {
            return TableLayout.FRESH_SLOT_TAT_NS;
        }
        final long movedNs = saturatedAdd(tatNs, deltaNs);
        return Math.max(TableLayout.FRESH_SLOT_TAT_NS, Math.min(movedNs, capNs));
    }

    static long saturatedAdd(final long a, final long b)
    {
        final long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0)
        {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    static long saturatedSubtract(final long a, final long b)
    {
        final long difference = a - b;
        if (((a ^ b) & (a ^ difference)) < 0)
        {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return difference;
    }
}
