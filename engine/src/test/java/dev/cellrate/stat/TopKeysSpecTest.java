package dev.cellrate.stat;

import dev.cellrate.Result;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guarantees {@link TopKeys} and {@link LimiterStats#topKeysSampleEvery()} state (the cases PIT finds in
 * {@code dev.cellrate.stat}): eviction of the first least entry, weights, the reader's order and merge, the
 * layout a reader in another process walks, busy stripes, and a sampled sketch's multiples of the weight, its
 * first sample and its longest gap.
 */
final class TopKeysSpecTest
{
    private static TopKeys sketch(final int k, final int stripes)
    {
        return new TopKeys(new UnsafeBuffer(new byte[TopKeys.length(k, stripes)]), 0, k, stripes);
    }

    private static List<TopKeys.Entry> top(final TopKeys sketch)
    {
        return List.of(sketch.top(Integer.MAX_VALUE));
    }

    private static TopKeys.Entry entry(final long key, final long count, final long error)
    {
        return new TopKeys.Entry(key, count, error);
    }

    @Test
    void aNewKeyEvictsTheFirstEntryOfLeastCountAndInheritsItsCountAsError()
    {
        final TopKeys sketch = sketch(3, 1);
        assertEquals(List.of(), top(sketch), "an empty sketch holds nothing");
        sketch.add(30, 0, 1);
        sketch.add(20, 0, 1);
        sketch.add(10, 0, 1);
        assertEquals(List.of(entry(10, 1, 0), entry(20, 1, 0), entry(30, 1, 0)), top(sketch),
            "equal counts are listed by key");
        sketch.add(40, 0, 1);
        assertEquals(List.of(entry(40, 2, 1), entry(10, 1, 0), entry(20, 1, 0)), top(sketch),
            "30, the first of the least, is evicted; 40 takes (1 + 1, 1)");
        sketch.add(50, 0, 1);
        assertEquals(List.of(entry(40, 2, 1), entry(50, 2, 1), entry(10, 1, 0)), top(sketch),
            "then 20, the first least left");
        sketch.add(20, 0, 1);
        assertEquals(List.of(entry(20, 2, 1), entry(40, 2, 1), entry(50, 2, 1)), top(sketch));
        sketch.add(40, 0, 1);
        assertEquals(List.of(entry(40, 3, 1), entry(20, 2, 1), entry(50, 2, 1)), top(sketch), "a held key gains 1");
        long total = 0;
        for (final TopKeys.Entry e : top(sketch))
        {
            total += e.count();
        }
        assertEquals(7, total, "the counts sum to the weight added");
    }

    @Test
    void weightsAddUpAndANewKeysCountMinusErrorIsItsWeight()
    {
        final TopKeys sketch = sketch(2, 1);
        sketch.add(0, 0, 3);
        assertEquals(List.of(entry(0, 3, 0)), top(sketch), "key word 0 is a key like any other");
        sketch.add(5, 0, 8);
        sketch.add(0, 0, 2);
        assertEquals(List.of(entry(5, 8, 0), entry(0, 5, 0)), top(sketch));
        sketch.add(9, 0, 8);
        assertEquals(List.of(entry(9, 13, 5), entry(5, 8, 0)), top(sketch), "9 replaces 0 (5) as (9, 5 + 8, 5)");
        assertEquals(List.of(entry(9, 13, 5)), List.of(sketch.top(1)));
        assertEquals(List.of(), List.of(sketch.top(0)));
        assertEquals(List.of(), List.of(sketch.top(-1)));
    }

    @Test
    void everyKeyAboveTheWeightOverKIsHeldWithinItsError()
    {
        // An adversarial stream for Space-Saving: a cyclic tail of 40 keys between the heavy keys' turns.
        final int k = 8;
        final TopKeys sketch = sketch(k, 1);
        final java.util.Map<Long, Long> truth = new java.util.HashMap<>();
        long added = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final long key = i % 5 == 0 ? 1 : i % 7 == 0 ? 2 : 100 + i % 40;
            final long weight = 1 + i % 3;
            sketch.add(key, 0, weight);
            truth.merge(key, weight, Long::sum);
            added += weight;
        }
        long total = 0;
        for (final TopKeys.Entry e : top(sketch))
        {
            final long actual = truth.get(e.key());
            assertTrue(e.count() >= actual && e.count() - e.error() <= actual, e + " true " + actual);
            total += e.count();
        }
        assertEquals(added, total);
        for (final java.util.Map.Entry<Long, Long> e : truth.entrySet())
        {
            if (e.getValue() > added / k)
            {
                assertTrue(top(sketch).stream().anyMatch(entry -> entry.key() == e.getKey()), "not held: " + e);
            }
        }
        assertEquals(1, top(sketch).get(0).key());
    }

    @Test
    void theReaderMergesAKeysStripesAndAStripeIsLaidOutAsDrawn()
    {
        final int k = 2;
        final int stripes = 4;
        final int stripeLength = 64 + 64; // 64-byte header, 2 x 24-byte entries padded to 64
        assertEquals(stripes * stripeLength, TopKeys.length(k, stripes));
        assertEquals(64 + 2 * 64, TopKeys.length(5, 1), "64 + 5 x 24 = 184, padded to 192");
        final int offset = 256;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[offset + TopKeys.length(k, stripes)]);
        final TopKeys sketch = new TopKeys(buffer, offset, k, stripes);
        assertEquals(offset, sketch.offset());
        assertEquals(k, sketch.k());
        assertEquals(stripes, sketch.stripes());

        sketch.add(7, 1, 8);
        sketch.add(7, 6, 8); // stripe 6 & 3 = 2
        sketch.add(7, 6, 8);
        sketch.add(3, 6, 8);
        sketch.add(4, 6, 8); // stripe 2 evicts 3: (4, 16, 8)
        assertEquals(List.of(entry(7, 24, 0), entry(4, 16, 8)), List.of(sketch.top(10)));
        assertEquals(List.of(entry(7, 24, 0), entry(4, 16, 8)), List.of(TopKeys.read(buffer, offset, k, stripes, 10)),
            "a reader of the same region, as another process reads it");

        // Stripe 1: one writer pass (sequence 2), entry 0 = (7, 8, 0).
        final int stripe1 = offset + stripeLength;
        assertEquals(2, buffer.getLong(stripe1 + TopKeys.SEQUENCE_OFFSET));
        assertEquals(7, buffer.getLong(stripe1 + TopKeys.ENTRIES_OFFSET + TopKeys.ENTRY_KEY_OFFSET));
        assertEquals(8, buffer.getLong(stripe1 + TopKeys.ENTRIES_OFFSET + TopKeys.ENTRY_COUNT_OFFSET));
        // Stripe 2: four passes; entry 0 = (7, 16, 0), entry 1 = (4, 16, 8).
        final int stripe2 = offset + 2 * stripeLength;
        assertEquals(8, buffer.getLong(stripe2 + TopKeys.SEQUENCE_OFFSET));
        final int entry1 = stripe2 + TopKeys.ENTRIES_OFFSET + TopKeys.ENTRY_LENGTH;
        assertEquals(4, buffer.getLong(entry1 + TopKeys.ENTRY_KEY_OFFSET));
        assertEquals(16, buffer.getLong(entry1 + TopKeys.ENTRY_COUNT_OFFSET));
        assertEquals(8, buffer.getLong(entry1 + TopKeys.ENTRY_ERROR_OFFSET));
        assertEquals(0, buffer.getLong(offset + TopKeys.SEQUENCE_OFFSET), "stripes 0 and 3 untouched");
        assertEquals(0, buffer.getLong(offset + 3 * stripeLength + TopKeys.SEQUENCE_OFFSET));
        assertEquals(0, buffer.getLong(0), "nothing before the region's offset is written");
    }

    @Test
    void aBusyStripeSendsTheSampleToTheNextAndAllBusyDropsItCounted()
    {
        final int k = 2;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[TopKeys.length(k, 2)]);
        final TopKeys sketch = new TopKeys(buffer, 0, k, 2);
        final int stripeLength = TopKeys.length(k, 1);
        buffer.putLong(TopKeys.SEQUENCE_OFFSET, 1); // stripe 0 held by a writer
        sketch.add(7, 0, 8);
        assertEquals(7, buffer.getLong(stripeLength + TopKeys.ENTRIES_OFFSET + TopKeys.ENTRY_KEY_OFFSET),
            "stripe 0 busy: stripe 1 takes it");
        assertEquals(0, sketch.droppedSamples());
        buffer.putLong(stripeLength + TopKeys.SEQUENCE_OFFSET, 3); // and stripe 1
        sketch.add(9, 0, 8);
        sketch.add(9, 1, 4);
        assertEquals(12, sketch.droppedSamples(), "every stripe busy: dropped, counted by weight");
        buffer.putLong(TopKeys.SEQUENCE_OFFSET, 2); // stripe 0 free again; stripe 1's writer died holding it
        sketch.add(9, 0, 8);
        assertEquals(List.of(entry(7, 8, 0), entry(9, 8, 0)), top(sketch),
            "after a bounded wait a held stripe is read as it is, and each stripe counts once");
        buffer.putLong(stripeLength + TopKeys.SEQUENCE_OFFSET, 4);
        assertEquals(List.of(entry(7, 8, 0), entry(9, 8, 0)), top(sketch));
        assertEquals(12, sketch.droppedSamples());
    }

    @Test
    void theOneArgumentAddCountsOne()
    {
        final TopKeys sketch = sketch(4, 2);
        sketch.add(5);
        sketch.add(5);
        sketch.add(6);
        assertEquals(List.of(entry(5, 2, 0), entry(6, 1, 0)), top(sketch));
    }

    private static LimiterStats sampled(final int sampleEvery, final int k)
    {
        return StatFile.inMemory(16, TopKeys.length(k, 1)).limiter("s", 1, k, sampleEvery);
    }

    private static long weightOf(final LimiterStats stats)
    {
        long total = 0;
        for (final TopKeys.Entry e : stats.topKeys().top(Integer.MAX_VALUE))
        {
            assertEquals(0, e.count() % stats.topKeysSampleEvery(), e.toString());
            assertEquals(0, e.error() % stats.topKeysSampleEvery(), e.toString());
            total += e.count();
        }
        return total;
    }

    @Test
    void aSampledSketchWeighsEachSampleByTheRateAndStaysWithinFiveWeightsOfTheRejections()
    {
        for (final int w : new int[]{ 2, 4, 8, 64, 1024 })
        {
            final LimiterStats stats = sampled(w, 4);
            assertEquals(w, stats.topKeysSampleEvery());
            for (int n = 1; n <= 20_000; n++)
            {
                stats.record(n % 3, 1_000L);
                final long weight = weightOf(stats);
                if (1 == n)
                {
                    assertEquals(w, weight, "the first rejection of a stripe is sampled");
                }
                assertTrue(Math.abs(weight - n) <= 5L * w, "w " + w + ", n " + n + ": weight " + weight);
            }
            assertEquals(20_000, stats.outcome(StatKind.REJECTED), "the counters stay exact");
        }
    }

    @Test
    void anyTwoWConsecutiveRejectionsOfAStripeIncludeASample()
    {
        for (final int w : new int[]{ 8, 32 })
        {
            for (int before = 0; before < 40 * w; before++)
            {
                final LimiterStats stats = sampled(w, 2);
                for (int i = 0; i < before; i++)
                {
                    stats.record(1, 1_000L);
                }
                for (int i = 0; i < 2 * w; i++)
                {
                    stats.record(2, 1_000L);
                }
                boolean held = false;
                for (final TopKeys.Entry e : stats.topKeys().top(2))
                {
                    held |= 2 == e.key();
                }
                assertTrue(held, "w " + w + ": key 2, rejected 2w times after " + before + " others, never sampled");
            }
        }
    }

    @Test
    void onlyRejectionsWithAKeyFeedTheSketch()
    {
        final LimiterStats stats = sampled(1, 8);
        stats.record(1, Result.ADMITTED);
        stats.record(2, Result.ADMITTED_TABLE_FULL);
        stats.recordReservation(3, 0);
        assertEquals(Result.ADMITTED, stats.dryRun(4, Result.ADMITTED));
        assertEquals(0, stats.dryRunReservation(5, 0));
        stats.record(1_000L);
        assertEquals(Result.WOULD_HAVE_REJECTED, stats.dryRun(1_000L));
        assertEquals(Result.WOULD_HAVE_REJECTED, stats.dryRunReservation(Result.QUEUE_FULL));
        stats.recordReservation(Result.QUEUE_FULL);
        assertEquals(List.of(), List.of(stats.topKeys().top(8)), "admissions and unkeyed rejections: nothing");

        stats.record(11, 1_000L);
        stats.record(12, Result.NEVER);
        stats.record(13, Result.TABLE_FULL);
        stats.recordReservation(14, Result.QUEUE_FULL);
        assertEquals(Result.WOULD_HAVE_REJECTED, stats.dryRun(15, 1_000L));
        assertEquals(Result.WOULD_HAVE_REJECTED, stats.dryRunReservation(16, Result.encodeRetryAfter(5)));
        assertEquals(List.of(entry(11, 1, 0), entry(12, 1, 0), entry(13, 1, 0), entry(14, 1, 0), entry(15, 1, 0),
            entry(16, 1, 0)), List.of(stats.topKeys().top(8)));
        assertEquals(4, stats.outcome(StatKind.WOULD_REJECT), "four would-be rejections in all");
    }
}
