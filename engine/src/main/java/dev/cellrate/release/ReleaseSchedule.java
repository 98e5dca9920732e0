package dev.cellrate.release;

/**
 * The release agent's pending items: a preallocated binary min-heap ordered by {@code (dueNs, seq)}, so
 * equal due times keep submission order. Single-threaded (agent thread only); no allocation after
 * construction. {@code O(log n)} add and poll; exact order at any resolution (a timer wheel would order only
 * to its tick and, within a tick, by slot position).
 *
 * @param <E> the caller's item type.
 */
final class ReleaseSchedule<E>
{
    /**
     * One preallocated carrier of an item: owned by a producer between claim and publish, then by the agent.
     *
     * @param <E> the caller's item type.
     */
    static final class Entry<E>
    {
        E item;
        long dueNs;
        long seq;
    }

    private final Entry<E>[] heap;
    private int size;

    @SuppressWarnings("unchecked")
    ReleaseSchedule(final int capacity)
    {
        heap = (Entry<E>[])new Entry<?>[capacity];
    }

    boolean isEmpty()
    {
        return 0 == size;
    }

    /**
     * @return the earliest due time; only when not empty.
     */
    long peekDueNs()
    {
        return heap[0].dueNs;
    }

    /**
     * @param entry an entry with {@code dueNs} and {@code seq} set; the heap has room by construction.
     */
    void add(final Entry<E> entry)
    {
        final Entry<E>[] heap = this.heap;
        int index = size++;
        while (index > 0)
        {
            final int parent = (index - 1) >>> 1;
            final Entry<E> parentEntry = heap[parent];
            if (!before(entry, parentEntry))
            {
                break;
            }
            heap[index] = parentEntry;
            index = parent;
        }
        heap[index] = entry;
    }

    /**
     * @return the earliest entry, removed; only when not empty.
     */
    Entry<E> poll()
    {
        final Entry<E>[] heap = this.heap;
        final Entry<E> first = heap[0];
        final int last = --size;
        final Entry<E> moved = heap[last];
        heap[last] = null;
        if (last > 0)
        {
            int index = 0;
            while (true)
            {
                int child = 2 * index + 1;
                if (child >= last)
                {
                    break;
                }
                if (child + 1 < last && before(heap[child + 1], heap[child]))
                {
                    child++;
                }
                if (!before(heap[child], moved))
                {
                    break;
                }
                heap[index] = heap[child];
                index = child;
            }
            heap[index] = moved;
        }
        return first;
    }

    private static boolean before(final Entry<?> a, final Entry<?> b)
    {
        return a.dueNs < b.dueNs || (a.dueNs == b.dueNs && a.seq < b.seq);
    }
}
