package dev.cellrate.release;

import java.util.ArrayList;
import java.util.List;

/** Test handler recording every call (agent thread only; read after the agent stopped or from its thread). */
final class RecordingHandler implements ReleaseHandler<String>
{
    final List<String> released = new ArrayList<>();
    final List<Long> releasedDueNs = new ArrayList<>();
    final List<Long> releasedNowNs = new ArrayList<>();
    final List<String> handedBack = new ArrayList<>();
    final List<Long> handedBackDueNs = new ArrayList<>();
    String throwOn;

    public void onRelease(final String item, final long dueNs, final long nowNs)
    {
        released.add(item);
        releasedDueNs.add(dueNs);
        releasedNowNs.add(nowNs);
        if (item.equals(throwOn))
        {
            throw new IllegalStateException("handler failed on " + item);
        }
    }

    public void onHandBack(final String item, final long dueNs)
    {
        handedBack.add(item);
        handedBackDueNs.add(dueNs);
        if (item.equals(throwOn))
        {
            throw new IllegalStateException("handler failed on " + item);
        }
    }
}
