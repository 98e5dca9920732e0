package dev.cellrate.release;

import dev.cellrate.check.Bounds;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

/**
 * Runs a {@link ReleaseAgent} on its own thread under an Agrona {@link AgentRunner} with the given
 * {@link IdleStrategy} (e.g. {@code BusySpinIdleStrategy} for the lowest lateness on a dedicated core,
 * {@code BackoffIdleStrategy} or {@code SleepingMillisIdleStrategy} to share the CPU; see
 * {@code docs/shaper.md} for measured lateness).
 * <p>
 * {@link #close()} refuses new submissions at once ({@link dev.cellrate.Result#CLOSED}), stops the duty
 * cycle and runs {@link ReleaseAgent#onClose()} on the agent thread, which hands back every item not yet
 * released. It returns when the thread has finished. Threading: {@link #close()} from any thread.
 */
public final class ReleaseRunner implements AutoCloseable
{
    private final ReleaseAgent<?> agent;
    private final AgentRunner agentRunner;

    private ReleaseRunner(final ReleaseAgent<?> agent, final AgentRunner agentRunner)
    {
        this.agent = agent;
        this.agentRunner = agentRunner;
    }

    /**
     * Start {@code agent} on a new thread.
     *
     * @param agent        the agent (not already run elsewhere).
     * @param idleStrategy how the thread waits when nothing is due.
     * @param errorHandler receives exceptions thrown by the handler (the duty cycle continues).
     * @return the running runner.
     */
    public static ReleaseRunner start(
        final ReleaseAgent<?> agent, final IdleStrategy idleStrategy, final ErrorHandler errorHandler)
    {
        Bounds.requireNonNull("agent", agent);
        Bounds.requireNonNull("idleStrategy", idleStrategy);
        Bounds.requireNonNull("errorHandler", errorHandler);
        final AgentRunner agentRunner = new AgentRunner(idleStrategy, errorHandler, null, agent);
        AgentRunner.startOnThread(agentRunner);
        return new ReleaseRunner(agent, agentRunner);
    }

    /**
     * @return the agent.
     */
    ReleaseAgent<?> agent()
    {
        return agent;
    }

    /**
     * @return the agent thread (null before it has started running).
     */
    Thread thread()
    {
        return agentRunner.thread();
    }

    /**
     * Refuse new submissions, stop, and hand back every unreleased item (on the agent thread). Idempotent.
     */
    public void close()
    {
        agent.closeSubmissions();
        agentRunner.close();
    }
}
