package dev.cellrate;

import dev.cellrate.table.SlotLoop;
import dev.cellrate.table.SlotTable;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No call through the public slot API can corrupt the table or crash the JVM. Raw offsets
 * (which, with Agrona's bounds checks off, could write anywhere, or into a shard's lock word and wedge it) are
 * neither taken nor handed out, and the table's buffer is not reachable. Before the fix {@code claimSlot},
 * {@code findSlot}, {@code loadTat}, {@code compareAndExchangeTat}, {@code overflowTatOffset} and
 * {@code buffer()} were public.
 */
class SlotApiSurfaceTest
{
    @Test
    void noPublicMethodTakesOrReturnsARawOffsetOrTheBuffer()
    {
        final List<String> offenders = new ArrayList<>();
        for (final Class<?> type : new Class<?>[]{SlotTable.class, SlotLoop.class})
        {
            for (final Method method : type.getDeclaredMethods())
            {
                final int modifiers = method.getModifiers();
                if (!Modifier.isPublic(modifiers) && !Modifier.isProtected(modifiers))
                {
                    continue;
                }
                final Class<?>[] parameters = method.getParameterTypes();
                final boolean keyBytes = parameters.length == 3 && parameters[1] == int.class &&
                    (parameters[0] == byte[].class || DirectBuffer.class.isAssignableFrom(parameters[0]));
                // the key words of a batch of byte keys: every int indexes a Java array or is a key range checked
                // against the array or buffer before any read (KeyedBatchTest.badRangeThrowsBeforeAnyDecision)
                final boolean keyBatch = "keyWords".equals(method.getName()) && parameters.length == 5 &&
                    parameters[1] == int[].class && parameters[2] == int[].class && parameters[3] == int.class;
                final boolean sweep = "sweep".equals(method.getName());
                // The classed slot loop takes a class index, never an offset (chargeClassed checks it against
                // the table's class capacity before it reaches a stored word).
                final boolean classIndex = method.getName().toLowerCase().contains("class") &&
                    parameters.length > 0 && type == SlotLoop.class;
                boolean takesInt = false;
                for (final Class<?> parameter : parameters)
                {
                    takesInt |= parameter == int.class;
                }
                if ((takesInt && !keyBytes && !keyBatch && !sweep && !classIndex) ||
                    DirectBuffer.class.isAssignableFrom(method.getReturnType()) ||
                    (method.getReturnType() == int.class && method.getName().toLowerCase().contains("offset")) ||
                    "claimSlot".equals(method.getName()) || "findSlot".equals(method.getName()))
                {
                    offenders.add(type.getSimpleName() + "." + method.getName());
                }
            }
        }
        assertEquals(List.of(), offenders);
    }

    /** A front that refunds whatever it is told: the worst a subclass of the public slot loop can do. */
    static final class Careless extends SlotLoop<Object>
    {
        Careless(final SlotTable table)
        {
            super(table);
        }

        boolean lower(final long keyWord, final long chargedNs, final long restoredNs)
        {
            return refund(keyWord, chargedNs, restoredNs);
        }

        protected long admitted(
            final Object holder, final long keyWord, final long tatBeforeNs, final long tatAfterNs,
            final long incrementNs, final long nowNs)
        {
            return Result.ADMITTED;
        }

        protected long rejected(final Object holder, final long retryAfterNs, final long tatNs, final long nowNs)
        {
            return retryAfterNs;
        }

        protected long tableFull(final Object holder, final long incrementNs, final long nowNs)
        {
            return Result.TABLE_FULL;
        }
    }

    @Test
    void randomPublicCallsNeverCorruptAnotherKeyOrWedgeAShard()
    {
        final long tNs = 1_000;
        final Limit limit = Limit.ofGcra(tNs, 9 * tNs);
        final CachedNanoClock clock = new CachedNanoClock();
        final KeyedRateLimiter keyed = KeyedRateLimiter.builder(limit).shardCount(2).slotCount(16).probeBound(8)
            .idleGraceNs(100 * tNs).seed(9).clock(clock).build();
        final SlotTable table = keyed.table();
        final Careless careless = new Careless(table);
        final RateLimiter witness = new RateLimiter(limit);
        final long witnessKey = 424242;
        final SplittableRandom random = new SplittableRandom(5);
        final long[] odd = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
        long nowNs = 1_000_000;
        int witnessed = 0;
        for (int i = 0; i < 200_000; i++)
        {
            nowNs += random.nextLong(2 * tNs);
            clock.update(nowNs);
            final long key = random.nextInt(40);
            final long word = table.keyWord(key);
            final long anyNs = random.nextInt(4) == 0 ? odd[random.nextInt(odd.length)] : nowNs + random.nextLong(-tNs, tNs);
            switch (random.nextInt(7))
            {
                case 0:
                    careless.charge(word, random.nextLong(-2, 12) * tNs, 9 * tNs, anyNs, null);
                    break;
                case 1:
                    final long tatNs = table.tatNs(word);
                    careless.lower(word, SlotTable.STALE == tatNs ? anyNs : tatNs, random.nextBoolean() ? anyNs :
                        tatNs - random.nextLong(0, 20 * tNs));
                    break;
                case 2:
                    careless.lower(random.nextLong(), anyNs, anyNs - random.nextLong(1, 1L << 40));
                    break;
                case 3:
                    table.sweep(anyNs, random.nextInt(-5, 40));
                    break;
                case 4:
                    keyed.tryAcquire(key, random.nextLong(-1, 12), anyNs);
                    break;
                case 5:
                    table.chargeOverflow(random.nextLong(-2, 12) * tNs, 9 * tNs, anyNs);
                    table.tatNs(word);
                    table.slotIndexOf(word);
                    table.countSlots(word);
                    break;
                default:
                    final long permits = 1 + random.nextInt(3);
                    final long code = keyed.tryAcquire(witnessKey, permits, nowNs);
                    if (Result.TABLE_FULL != code)
                    {
                        witnessed++;
                        assertEquals(witness.tryAcquire(permits, nowNs), code,
                            "the witness key decides as its own RateLimiter, request " + i);
                    }
                    break;
            }
        }
        assertTrue(witnessed > 20_000, "witness decisions " + witnessed);
        assertTrue(table.liveKeys() <= table.slotCount());
        for (long key = 1_000; key < 1_016; key++)
        {
            keyed.tryAcquire(key, 1, nowNs + 1_000_000 * tNs);
        }
        clock.update(nowNs + 2_000_000 * tNs);
        assertEquals(Result.ADMITTED, keyed.tryAcquire(99_999L, 1, nowNs + 2_000_000 * tNs), "no shard wedged");
    }
}
