package dev.cellrate.bench;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Random;

/**
 * A probe of the keyed table's lookup shape, in CPU time of the thread, on an emulated table (no engine code):
 * 64-byte buckets of four 16-byte slots [key word][TAT], sized for 75% load, every key inserted into its home
 * bucket (keys that do not fit are left out), a uniform stream of present keys. Workloads:
 * <ul>
 *     <li>{@code random CAS}: the floor, read-then-CAS of a random slot's TAT (no key check);</li>
 *     <li>{@code branchless scan}: the four key words of the home bucket read and compared without a branch
 *     (the matching slot's address is an OR of masks), then the TAT and the key again (acquire), then the CAS;</li>
 *     <li>{@code branchy scan}: the same with one predicted branch per slot ({@code if k0 == key ... else if ...}).</li>
 * </ul>
 * On a table larger than the caches the lookup shape decides whether the next decision's miss starts before
 * this one's CAS completes.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.BucketScanCpuTime [keys] [rounds]} (default 1,000,000 keys, 7 rounds).
 */
public final class BucketScanCpuTime
{
    private static final int OPS = 2_000_000;
    private static final int BUCKET_LENGTH = 64;
    private static final int SLOT_LENGTH = 16;
    private static final String[] NAMES = {"random CAS", "branchless scan", "branchy scan"};

    private final long address;
    private final long buckets;
    private final long[] stream = new long[1 << 20];
    private long nowNs = 1;

    private BucketScanCpuTime(final int keys)
    {
        buckets = ((keys * 4L / 3) + 3) / 4;
        address = new UnsafeBuffer(BufferUtil.allocateDirectAligned((int)(buckets * BUCKET_LENGTH), BUCKET_LENGTH))
            .addressOffset();
        final long[] words = new long[keys];
        for (int i = 0; i < keys; i++)
        {
            final long word = RandomCasTarget.mix(KeyStream.longKey(i)) | 1;
            words[i] = word;
            final long line = line(word);
            for (int s = 0; s < 4; s++)
            {
                if (UnsafeApi.getLong(null, line + s * SLOT_LENGTH) == 0)
                {
                    UnsafeApi.putLong(null, line + s * SLOT_LENGTH, word);
                    break;
                }
            }
        }
        final Random random = new Random(3);
        for (int i = 0; i < stream.length; i++)
        {
            stream[i] = words[random.nextInt(keys)];
        }
    }

    private long line(final long word)
    {
        return address + (((word & 0xFFFF_FFFFL) * buckets) >>> 32) * BUCKET_LENGTH;
    }

    private static long matches(final long a, final long b)
    {
        final long x = a ^ b;
        return ((x - 1) & ~x) >> 63;
    }

    /**
     * @param args optional key count (default 1,000,000) and round count (default 7).
     */
    public static void main(final String[] args)
    {
        final int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        final BucketScanCpuTime work = new BucketScanCpuTime(keys);
        final PairedRounds measured = PairedRounds.measure(NAMES.length, 2, rounds, w -> OPS, work::run);
        System.out.printf("%,d keys%n", keys);
        measured.printCpuNs(NAMES, 16, 6);
        System.out.println("(keys not in their home bucket, skipped: " + measured.sink() + ")");
    }

    private long run(final int workload)
    {
        switch (workload)
        {
            case 0:
                return randomCas();
            case 1:
                return branchless();
            default:
                return branchy();
        }
    }

    // one loop per workload, so each is compiled on its own
    private long randomCas()
    {
        long missing = 0;
        final int mask = stream.length - 1;
        for (int i = 0; i < OPS; i++)
        {
            final long word = stream[i & mask];
            missing += cas(address + ((((word & 0xFFFF_FFFFL) * buckets * 4) >>> 32) * SLOT_LENGTH), word, false);
        }
        return missing;
    }

    private long branchless()
    {
        long missing = 0;
        final int mask = stream.length - 1;
        for (int i = 0; i < OPS; i++)
        {
            final long word = stream[i & mask];
            final long line = line(word);
            final long k0 = UnsafeApi.getLong(null, line);
            final long k1 = UnsafeApi.getLong(null, line + SLOT_LENGTH);
            final long k2 = UnsafeApi.getLong(null, line + 2 * SLOT_LENGTH);
            final long k3 = UnsafeApi.getLong(null, line + 3 * SLOT_LENGTH);
            missing += cas((line & matches(k0, word)) | ((line + SLOT_LENGTH) & matches(k1, word)) |
                ((line + 2 * SLOT_LENGTH) & matches(k2, word)) | ((line + 3 * SLOT_LENGTH) & matches(k3, word)), word, true);
        }
        return missing;
    }

    private long branchy()
    {
        long missing = 0;
        final int mask = stream.length - 1;
        for (int i = 0; i < OPS; i++)
        {
            final long word = stream[i & mask];
            final long line = line(word);
            final long slot;
            if (UnsafeApi.getLong(null, line) == word)
            {
                slot = line;
            }
            else if (UnsafeApi.getLong(null, line + SLOT_LENGTH) == word)
            {
                slot = line + SLOT_LENGTH;
            }
            else if (UnsafeApi.getLong(null, line + 2 * SLOT_LENGTH) == word)
            {
                slot = line + 2 * SLOT_LENGTH;
            }
            else if (UnsafeApi.getLong(null, line + 3 * SLOT_LENGTH) == word)
            {
                slot = line + 3 * SLOT_LENGTH;
            }
            else
            {
                slot = 0;
            }
            missing += cas(slot, word, true);
        }
        return missing;
    }

    /** The validated read-then-CAS of a slot's TAT; 1 if the key is not there (or the CAS lost). */
    private long cas(final long slot, final long word, final boolean checkKey)
    {
        if (0 == slot)
        {
            return 1;
        }
        final long tatNs = UnsafeApi.getLongAcquire(null, slot + 8);
        if (checkKey && UnsafeApi.getLongAcquire(null, slot) != word)
        {
            return 1;
        }
        final long now = nowNs++;
        return UnsafeApi.compareAndExchangeLong(null, slot + 8, tatNs, Math.max(tatNs, now) + 1) == tatNs ? 0 : 1;
    }
}
