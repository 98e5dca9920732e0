package dev.cellrate.table.mapped;

import dev.cellrate.table.ShardLock;
import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.AtomicBuffer;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The shard insert lock of a table shared by processes: the lock word ({@link TableLayout#LOCK_OFFSET} of a shard
 * header) is 0 when free and the holder's {@link LockHolder} token when held, so it survives a holder that dies
 * inside its critical section.
 * <p>
 * <b>Protocol.</b> Take: CAS 0 to this process's token (every thread of a process uses the same token; the lock
 * excludes threads and processes alike). Release: a release store of 0 by the holder. A waiter spins (a spin
 * hint, a yield every 64th time) and, once it has waited {@link #DEAD_HOLDER_CHECK_NS} (and every
 * {@code DEAD_HOLDER_CHECK_NS} after that), asks whether the token it reads names a live process
 * ({@link LockHolder#isAlive}). If the holder is dead, the waiter CASes the dead token to its own: one waiter
 * wins, and it repairs the shard ({@link ShardRepair#afterDeadHolder}) before its own critical section, as the
 * new holder. A dead process never writes again, so its token stays in the word until a waiter replaces it;
 * a live holder is never displaced, however long it holds the lock.
 * <p>
 * Memory ordering: the taking CAS (volatile) pairs with the release store of the previous holder; the
 * repair's reads of a dead holder's writes are ordered after the takeover CAS.
 */
final class SharedShardLock implements ShardLock
{
    /** How long a waiter waits before it first asks whether the holder is alive: 1 ms. */
    static final long DEAD_HOLDER_CHECK_NS = 1_000_000L;

    private static final int CLOCK_READ_EVERY = 256;

    private final AtomicBuffer buffer;
    private final int shardCount;
    private final int slotsPerShard;
    private final LongSupplier maxLagNs;
    private final long token;
    private final AtomicLong takeovers = new AtomicLong();
    private final AtomicLong repairedSlots = new AtomicLong();

    /**
     * @param buffer        the table region (mapped).
     * @param shardCount    shards.
     * @param slotsPerShard slots per shard.
     * @param maxLagNs     {@code 2 (tau + T)}: the deepest a key of the table's limit can be.
     */
    SharedShardLock(final AtomicBuffer buffer, final int shardCount, final int slotsPerShard, final long maxLagNs)
    {
        this(buffer, shardCount, slotsPerShard, () -> maxLagNs, LockHolder.self());
    }

    /**
     * @param buffer        the table region (mapped).
     * @param shardCount    shards.
     * @param slotsPerShard slots per shard.
     * @param maxLagNs      {@code 2 (tau + T)} of the limits in use (read at a takeover only).
     */
    SharedShardLock(
        final AtomicBuffer buffer, final int shardCount, final int slotsPerShard, final LongSupplier maxLagNs)
    {
        this(buffer, shardCount, slotsPerShard, maxLagNs, LockHolder.self());
    }

    SharedShardLock(
        final AtomicBuffer buffer, final int shardCount, final int slotsPerShard, final long maxLagNs,
        final long token)
    {
        this(buffer, shardCount, slotsPerShard, () -> maxLagNs, token);
    }

    private SharedShardLock(
        final AtomicBuffer buffer, final int shardCount, final int slotsPerShard, final LongSupplier maxLagNs,
        final long token)
    {
        this.buffer = buffer;
        this.shardCount = shardCount;
        this.slotsPerShard = slotsPerShard;
        this.maxLagNs = maxLagNs;
        this.token = token;
    }

    /**
     * Take the lock of the shard whose header is at {@code header}, taking it over from a dead holder if need be.
     *
     * @param header the shard header's offset (its lock word's).
     */
    @Override
    public void lock(final int header)
    {
        final int lockWord = header + TableLayout.LOCK_OFFSET;
        if (buffer.compareAndSetLong(lockWord, 0, token))
        {
            return;
        }
        int waits = 0;
        long checkAtNs = System.nanoTime() + DEAD_HOLDER_CHECK_NS;
        while (true)
        {
            final long holder = buffer.getLongVolatile(lockWord);
            if (0 == holder)
            {
                if (buffer.compareAndSetLong(lockWord, 0, token))
                {
                    return;
                }
            }
            else if (++waits % CLOCK_READ_EVERY == 0 && System.nanoTime() - checkAtNs >= 0)
            {
                if (!LockHolder.isAlive(holder) && buffer.compareAndSetLong(lockWord, holder, token))
                {
                    takeOver(header);
                    return;
                }
                checkAtNs = System.nanoTime() + DEAD_HOLDER_CHECK_NS;
            }
            if ((waits & 63) == 63)
            {
                Thread.yield();
            }
            else
            {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Release the lock of the shard whose header is at {@code header} (held by this process).
     *
     * @param header the shard header's offset.
     */
    @Override
    public void unlock(final int header)
    {
        buffer.putLongRelease(header + TableLayout.LOCK_OFFSET, 0);
    }

    private void takeOver(final int header)
    {
        final int shard = (header - TableLayout.SHARD_HEADERS_OFFSET) / TableLayout.SHARD_HEADER_LENGTH;
        final long capNs = TimeBase.saturatedAdd(System.nanoTime(), maxLagNs.getAsLong());
        final int repaired = ShardRepair.afterDeadHolder(buffer, shard, slotsPerShard, shardCount, capNs);
        repairedSlots.addAndGet(repaired);
        takeovers.incrementAndGet();
    }

    /**
     * @return locks this process took over from dead holders.
     */
    long takeovers()
    {
        return takeovers.get();
    }

    /**
     * @return slots found mid-reclaim in those shards and repaired.
     */
    long repairedSlots()
    {
        return repairedSlots.get();
    }

    /**
     * @param header a shard header's offset.
     * @return the lock word (0 or a holder's token), for diagnostics and tests.
     */
    long holder(final int header)
    {
        return buffer.getLongVolatile(header + TableLayout.LOCK_OFFSET);
    }
}
