package dev.cellrate.rls;

import dev.cellrate.stat.StatFile;
import dev.cellrate.rls.config.ConfigException;
import dev.cellrate.rls.config.RateLimitRule;
import dev.cellrate.rls.config.RlsConfig;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Envoy's {@code envoy.service.ratelimit.v3.RateLimitService}: each request's descriptors are matched against
 * the current configuration as envoyproxy/ratelimit matches them, decided by a {@link Decider}, and answered
 * with one status per descriptor.
 * <p>
 * Request bounds (checked before anything is allocated by the request's numbers): a non-empty domain, 1 to
 * {@link #MAX_DESCRIPTORS} descriptors, at most {@link #MAX_ENTRIES} entries each; otherwise the call fails with
 * {@code INVALID_ARGUMENT} naming the field. A domain the configuration does not have is answered OK with no
 * limit, as the reference answers it. A descriptor's {@code hits_addend} (a uint64) larger than a limit's
 * burst is refused by that limit (OVER_LIMIT), whatever its size.
 * <p>
 * Reload: {@link #apply(RlsConfig)} publishes a new snapshot by one volatile store; a request reads the
 * snapshot once and is decided wholly under it. A rule whose limit is unchanged keeps its state (its cells).
 * <p>
 * Threading: any thread; the embedded and fixed-window modes answer on the calling thread, the Redis mode on
 * a Lettuce I/O thread.
 */
public final class RlsService extends RateLimitServiceGrpc.RateLimitServiceImplBase
{
    /** Most descriptors in one request (the engine's composite decides up to 64 legs at once). */
    public static final int MAX_DESCRIPTORS = 64;
    /** Most entries in one descriptor. */
    public static final int MAX_ENTRIES = 32;
    /** Most distinct limit overrides (requests_per_unit, unit) kept; a new one past it is refused. */
    public static final int MAX_OVERRIDES = 64;
    /** Descriptors each override's table holds at most (64 tables of about 350 KB at most). */
    public static final int MAX_OVERRIDE_KEYS = 16_384;
    /** Field number of {@code is_negative_hits} in Envoy's {@code RateLimitDescriptor}. */
    static final int IS_NEGATIVE_HITS_FIELD = 4;
    /** The full key of an override rule starts with this. */
    static final String OVERRIDE_PREFIX = "override.";
    /**
     * Most statistics keys (detailed_metric and override keys multiply them); past it, one overflow key. Each
     * holds {@value RuleStats#COUNTERS_PER_KEY} of the stat file's {@link #ENGINE_COUNTERS} counters.
     */
    public static final int MAX_STATS_KEYS = 1_300;

    /**
     * Counters of the engine's stat file: {@value RuleStats#COUNTERS_PER_KEY} per statistics key (the hit counts
     * and the decision outcomes, one stripe each), room for {@link #MAX_STATS_KEYS} keys and the overflow key.
     */
    public static final int ENGINE_COUNTERS = 16_384;

    /** Which rate-limit headers a response carries. */
    public enum Headers
    {
        /** None. */
        NONE,
        /** {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers). */
        IETF,
        /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
        LEGACY
    }

    private static final Logger LOG = Logger.getLogger(RlsService.class.getName());

    private final Decider decider;
    private final boolean synchronous;
    private final ThreadLocal<Plan> plans = ThreadLocal.withInitial(() -> new Plan(MAX_DESCRIPTORS));
    private static final Runnable NOTHING = () -> { };
    private final Resolver resolver;
    private final Answers answers;
    private final LongAdder requests = new LongAdder(); // striped: event loops do not contend on one line
    private final LongAdder invalidRequests = new LongAdder();
    private final ScheduledExecutorService retirer = Executors.newSingleThreadScheduledExecutor(r ->
    {
        final Thread t = new Thread(r, "rls-retire");
        t.setDaemon(true);
        return t;
    });
    private volatile Snapshot snapshot;

    /**
     * @param decider          how descriptors are decided.
     * @param config           the first configuration.
     * @param globalShadowMode answer OK whatever the limits decide (and count it).
     * @param headers          which headers to add.
     * @throws ConfigException if a rule cannot be held by the decider.
     */
    public RlsService(final Decider decider, final RlsConfig config, final boolean globalShadowMode,
        final Headers headers) throws ConfigException
    {
        this(decider, config, globalShadowMode, headers, StatFile.inMemory(ENGINE_COUNTERS, 0));
    }

    /**
     * @param decider          how descriptors are decided.
     * @param config           the first configuration.
     * @param globalShadowMode answer OK whatever the limits decide (and count it).
     * @param headers          which headers to add.
     * @param statFile         where the engine's decision counters live (a mapped file for cellrate-stat).
     * @throws ConfigException if a rule cannot be held by the decider.
     */
    public RlsService(final Decider decider, final RlsConfig config, final boolean globalShadowMode,
        final Headers headers, final StatFile statFile) throws ConfigException
    {
        this.decider = decider;
        this.synchronous = decider.synchronous();
        this.resolver = new Resolver(decider, statFile);
        this.answers = new Answers(globalShadowMode, headers);
        apply(config);
    }

    /**
     * Publish a new configuration; rules whose limit is unchanged keep their state.
     *
     * @param config the configuration.
     * @throws ConfigException if a rule cannot be held by the decider (the current configuration stays).
     */
    public synchronized void apply(final RlsConfig config) throws ConfigException
    {
        final Snapshot old = snapshot;
        final Map<String, RuleState> states = new HashMap<>();
        for (final RateLimitRule rule : config.rules())
        {
            try
            {
                states.put(rule.fullKey(), decider.state(rule, null == old ? null : old.states.get(rule.fullKey())));
            }
            catch (final IllegalArgumentException ex)
            {
                final int colon = rule.source().lastIndexOf(':');
                throw new ConfigException(rule.source().substring(0, colon),
                    Integer.parseInt(rule.source().substring(colon + 1)), rule.fullKey() + ".rate_limit",
                    "cannot be held by this mode: " + ex.getMessage());
            }
        }
        final Snapshot next = new Snapshot(config, states);
        if (null != old)
        {
            next.overrides.putAll(old.overrides); // a request's override limits do not depend on the files
        }
        snapshot = next;
        if (null != old)
        {
            final List<RuleState> retired = new ArrayList<>();
            final Set<Object> kept = new HashSet<>();
            for (final RuleState s : states.values())
            {
                kept.add(null != s.redis ? s.redis : s);
            }
            for (final RuleState s : old.states.values())
            {
                if (!kept.contains(null != s.redis ? s.redis : s))
                {
                    retired.add(s);
                }
            }
            retirer.schedule(() -> retired.forEach(decider::retire), 10, TimeUnit.SECONDS);
        }
    }

    /**
     * @return the configuration in use.
     */
    public RlsConfig config()
    {
        return snapshot.config;
    }

    /**
     * The service as gRPC serves it: {@code ShouldRateLimit} with a request marshaller that hands a request
     * protobuf cannot parse (malformed UTF-8 in a string, a truncated field) to the service, which answers
     * {@code INVALID_ARGUMENT} naming the problem (grpc-java's own marshaller would make it an
     * {@code UNKNOWN} "application error").
     *
     * @return the definition to add to a server.
     */
    public ServerServiceDefinition definition()
    {
        final MethodDescriptor<Object, Object> method = RateLimitServiceGrpc.getShouldRateLimitMethod()
            .toBuilder(new RequestMarshaller(), new ResponseMarshaller())
            .build();
        return ServerServiceDefinition.builder(RateLimitServiceGrpc.SERVICE_NAME)
            .addMethod(method, ServerCalls.asyncUnaryCall((final Object parsed, final StreamObserver<Object> observer) ->
            {
                if (parsed instanceof RateLimitRequest)
                {
                    answer((RateLimitRequest)parsed, observer);
                }
                else
                {
                    requests.increment();
                    invalidRequests.increment();
                    fail(observer, Status.INVALID_ARGUMENT.withDescription(
                        "not a RateLimitRequest: " + ((Exception)parsed).getMessage()));
                }
            }))
            .build();
    }

    /**
     * The gRPC call's path: the request decided, and the answer sent to the observer as a {@link WireAnswer} (or
     * the call failed with its status).
     *
     * @param request  the request.
     * @param observer the call.
     */
    void answer(final RateLimitRequest request, final StreamObserver<Object> observer)
    {
        try
        {
            decide(request, observer, observer, true, RlsService::complete, RlsService::fail); // nothing captured
        }
        catch (final RuntimeException ex)
        {
            LOG.log(Level.SEVERE, "request not decided", ex);
            fail(observer, Status.INTERNAL.withDescription("not decided: " + ex));
        }
    }

    public void shouldRateLimit(final RateLimitRequest request, final StreamObserver<RateLimitResponse> observer)
    {
        try
        {
            decide(request, observer, observer, false, RlsService::complete, RlsService::fail);
        }
        catch (final RuntimeException ex)
        {
            LOG.log(Level.SEVERE, "request not decided", ex);
            fail(observer, Status.INTERNAL.withDescription("not decided: " + ex));
        }
    }

    /**
     * Decide one request (the gRPC call and {@code /json} share this).
     *
     * @param request   the request.
     * @param onAnswer  receives the response (exactly once, unless {@code onInvalid} is called).
     * @param onInvalid receives the status of a request that cannot be decided.
     */
    public void decide(final RateLimitRequest request, final Consumer<RateLimitResponse> onAnswer,
        final Consumer<Status> onInvalid)
    {
        decide(request, onAnswer, onInvalid, false, RlsService::accept, Consumer::accept);
    }

    private static void accept(final Consumer<RateLimitResponse> onAnswer, final Object response)
    {
        onAnswer.accept((RateLimitResponse)response);
    }

    /**
     * Decide one request, answering through functions that capture nothing (so that a call allocates no closure).
     *
     * @param request       the request.
     * @param answerTarget  passed to {@code answer}.
     * @param invalidTarget passed to {@code invalid}.
     * @param wire          answer a {@link WireAnswer} (this thread's, to be sent at once), else a
     *                      {@link RateLimitResponse}.
     * @param answer        receives the response (exactly once, unless {@code invalid} is called).
     * @param invalid       receives the status of a request that cannot be decided.
     */
    private <A, I> void decide(final RateLimitRequest request, final A answerTarget, final I invalidTarget,
        final boolean wire, final BiConsumer<A, Object> answer, final BiConsumer<I, Status> invalid)
    {
        requests.increment();
        final String invalidField = Resolver.validate(request);
        if (null != invalidField)
        {
            invalidRequests.increment();
            invalid.accept(invalidTarget, Status.INVALID_ARGUMENT.withDescription(invalidField));
            return;
        }
        final Snapshot s = snapshot;
        final Plan plan = plan(request);
        final String unresolved = resolver.resolve(s, plan);
        if (null != unresolved)
        {
            plan.release();
            invalidRequests.increment();
            invalid.accept(invalidTarget, Status.INVALID_ARGUMENT.withDescription(unresolved));
            return;
        }
        if (synchronous)
        {
            final Object response;
            try
            {
                decider.decide(plan, NOTHING);
                response = wire ? answers.encode(plan) : answers.respond(plan);
            }
            finally
            {
                plan.release();
            }
            answer.accept(answerTarget, response);
        }
        else
        {
            decider.decide(plan, () -> answer.accept(answerTarget, wire ? answers.encode(plan) : answers.respond(plan)));
        }
    }

    /** A decider that answers on the calling thread gets this thread's plan, unless a request already holds it. */
    private Plan plan(final RateLimitRequest request)
    {
        final long nowNs = decider.nowNs();
        if (synchronous)
        {
            final Plan reused = plans.get();
            if (!reused.inUse)
            {
                reused.inUse = true;
                return reused.reset(request, nowNs);
            }
        }
        return new Plan(request, nowNs);
    }

    /** A response ({@link RateLimitResponse} or {@link WireAnswer}), then the end of the call. */
    private static <T> void complete(final StreamObserver<T> observer, final Object response)
    {
        try
        {
            @SuppressWarnings("unchecked")
            final T message = (T)response;
            observer.onNext(message);
            observer.onCompleted();
        }
        catch (final RuntimeException ex)
        {
            // the call was cancelled meanwhile: nothing to answer
        }
    }

    private static void fail(final StreamObserver<?> observer, final Status status)
    {
        try
        {
            observer.onError(status.asRuntimeException());
        }
        catch (final RuntimeException ex)
        {
            // the call was cancelled meanwhile
        }
    }

    /**
     * @return every statistics key's counters (a copy, for readers).
     */
    Map<String, RuleStats> stats()
    {
        return resolver.stats();
    }

    long globalShadowCount()
    {
        return answers.globalShadowCount();
    }

    long requests()
    {
        return requests.sum();
    }

    long invalidRequests()
    {
        return invalidRequests.sum();
    }

    Decider decider()
    {
        return decider;
    }

    /**
     * @return the decider's own counters by metric name, summed over the rules in use.
     */
    Map<String, Long> deciderCounters()
    {
        return decider.counters(snapshot.states.values());
    }
}
