package dev.cellrate.rls;

import dev.cellrate.stat.StatFile;
import dev.cellrate.rls.config.ConfigException;
import dev.cellrate.rls.config.RateLimitRule;
import dev.cellrate.rls.config.RlsConfig;
import dev.cellrate.rls.config.Unit;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import com.google.protobuf.CodedInputStream;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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

    private static final class Snapshot
    {
        final RlsConfig config;
        final Map<String, RuleState> states;
        final Map<String, RuleState> overrides = new ConcurrentHashMap<>();

        Snapshot(final RlsConfig config, final Map<String, RuleState> states)
        {
            this.config = config;
            this.states = states;
        }
    }

    private static final Logger LOG = Logger.getLogger(RlsService.class.getName());

    private final Decider decider;
    private final boolean hashKeys;
    private final boolean synchronous;
    private final ThreadLocal<Plan> plans = ThreadLocal.withInitial(() -> new Plan(MAX_DESCRIPTORS));
    private static final Runnable NOTHING = () -> { };
    private final boolean textKeys;
    private final DescriptorKey descriptorKey;
    private final Map<String, RuleStats> stats = new ConcurrentHashMap<>();
    private final StatFile statFile;
    private final RuleStats overflowStats;
    private final Answers answers;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong invalidRequests = new AtomicLong();
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
        this.statFile = statFile;
        this.overflowStats = new RuleStats("", "_overflow", statFile);
        this.decider = decider;
        this.hashKeys = decider.hashedKeys();
        this.synchronous = decider.synchronous();
        this.textKeys = decider.textKeys();
        this.descriptorKey = new DescriptorKey();
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
        final MethodDescriptor<Object, RateLimitResponse> method = RateLimitServiceGrpc.getShouldRateLimitMethod()
            .toBuilder(new LenientRequests(), ProtoUtils.marshaller(RateLimitResponse.getDefaultInstance()))
            .build();
        return ServerServiceDefinition.builder(RateLimitServiceGrpc.SERVICE_NAME)
            .addMethod(method, ServerCalls.asyncUnaryCall((final Object parsed,
                final StreamObserver<RateLimitResponse> observer) ->
            {
                if (parsed instanceof RateLimitRequest)
                {
                    shouldRateLimit((RateLimitRequest)parsed, observer);
                }
                else
                {
                    requests.incrementAndGet();
                    invalidRequests.incrementAndGet();
                    fail(observer, Status.INVALID_ARGUMENT.withDescription(
                        "not a RateLimitRequest: " + ((Exception)parsed).getMessage()));
                }
            }))
            .build();
    }

    /**
     * Parses a request, or hands over why it cannot be parsed. A message of known length up to
     * {@link #PARSE_BUFFER_LENGTH} bytes (any request Envoy sends) is read into a per-thread buffer and parsed from
     * it, instead of through a fresh 4 KiB stream buffer per request; protobuf copies every string it reads, so
     * nothing parsed refers to the buffer.
     */
    private static final class LenientRequests implements MethodDescriptor.Marshaller<Object>
    {
        static final int PARSE_BUFFER_LENGTH = 8192;
        private static final ThreadLocal<byte[]> BUFFER = ThreadLocal.withInitial(() -> new byte[PARSE_BUFFER_LENGTH]);

        public InputStream stream(final Object value)
        {
            return ((RateLimitRequest)value).toByteString().newInput();
        }

        public Object parse(final InputStream stream)
        {
            try
            {
                final int length = stream instanceof io.grpc.KnownLength ? stream.available() : -1;
                if (length >= 0 && length <= PARSE_BUFFER_LENGTH)
                {
                    final byte[] buffer = BUFFER.get();
                    if (stream.readNBytes(buffer, 0, length) == length)
                    {
                        return RateLimitRequest.parseFrom(CodedInputStream.newInstance(buffer, 0, length));
                    }
                    throw new IOException("message shorter than its length " + length);
                }
                return RateLimitRequest.parseFrom(stream);
            }
            catch (final IOException ex)
            {
                return ex;
            }
        }
    }

    public void shouldRateLimit(final RateLimitRequest request, final StreamObserver<RateLimitResponse> observer)
    {
        try
        {
            decide(request, response -> complete(observer, response), status -> fail(observer, status));
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
        requests.incrementAndGet();
        final String invalid = validate(request);
        if (null != invalid)
        {
            invalidRequests.incrementAndGet();
            onInvalid.accept(Status.INVALID_ARGUMENT.withDescription(invalid));
            return;
        }
        final Snapshot s = snapshot;
        final Plan plan = plan(request);
        final String unresolved = resolve(s, plan);
        if (null != unresolved)
        {
            plan.release();
            invalidRequests.incrementAndGet();
            onInvalid.accept(Status.INVALID_ARGUMENT.withDescription(unresolved));
            return;
        }
        if (synchronous)
        {
            final RateLimitResponse response;
            try
            {
                decider.decide(plan, NOTHING);
                response = answers.respond(plan);
            }
            finally
            {
                plan.release();
            }
            onAnswer.accept(response);
        }
        else
        {
            decider.decide(plan, () -> onAnswer.accept(answers.respond(plan)));
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

    private static void complete(final StreamObserver<RateLimitResponse> observer, final RateLimitResponse response)
    {
        try
        {
            observer.onNext(response);
            observer.onCompleted();
        }
        catch (final RuntimeException ex)
        {
            // the call was cancelled meanwhile: nothing to answer
        }
    }

    private static void fail(final StreamObserver<RateLimitResponse> observer, final Status status)
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

    static String validate(final RateLimitRequest request)
    {
        if (request.getDomain().isEmpty())
        {
            return "domain must not be empty";
        }
        final int count = request.getDescriptorsCount();
        if (count < 1 || count > MAX_DESCRIPTORS)
        {
            return "descriptors must hold 1 to " + MAX_DESCRIPTORS + " descriptors but held " + count;
        }
        for (int i = 0; i < count; i++)
        {
            final int entries = request.getDescriptors(i).getEntriesCount();
            if (entries > MAX_ENTRIES)
            {
                return "descriptors[" + i + "].entries must hold at most " + MAX_ENTRIES + " entries but held " +
                    entries;
            }
        }
        return null;
    }

    private String resolve(final Snapshot s, final Plan plan)
    {
        final RateLimitRequest request = plan.request;
        final String domain = request.getDomain();
        final long requestHits = Math.max(1, Integer.toUnsignedLong(request.getHitsAddend()));
        final RlsConfig.Match match = plan.match;
        Set<String> replaced = null;
        final String[] statsKeys = plan.statsKeys;
        final String[][] shared = plan.shared;
        for (int i = 0; i < plan.count; i++)
        {
            final RateLimitDescriptor descriptor = request.getDescriptors(i);
            if (descriptor.hasHitsAddend())
            {
                final long hits = descriptor.getHitsAddend().getValue();
                plan.hits[i] = hits < 0 ? Long.MAX_VALUE : hits; // a uint64 above 2^63 - 1
            }
            else
            {
                plan.hits[i] = requestHits;
            }
            plan.refund[i] = isNegativeHits(descriptor);
            if (descriptor.hasLimit())
            {
                final Unit unit = Unit.of(descriptor.getLimit().getUnit());
                if (null == unit)
                {
                    return "descriptors[" + i + "].limit.unit must be one of SECOND, MINUTE, HOUR, DAY, WEEK, " +
                        "MONTH, YEAR but was " + descriptor.getLimit().getUnit();
                }
                final long requestsPerUnit = Integer.toUnsignedLong(descriptor.getLimit().getRequestsPerUnit());
                final RuleState state = override(s, domain, unit, requestsPerUnit);
                plan.rules[i] = state.rule;
                plan.states[i] = state;
                statsKeys[i] = overrideStatsKey(domain, descriptor);
                continue;
            }
            final RateLimitRule rule = s.config.match(domain, descriptor, match);
            if (null == rule)
            {
                continue;
            }
            plan.rules[i] = rule;
            plan.states[i] = s.states.get(rule.fullKey());
            plan.unlimited[i] = rule.unlimited();
            statsKeys[i] = match.statsKey;
            shared[i] = match.sharedValues;
            if (!rule.replaces().isEmpty())
            {
                if (null == replaced)
                {
                    replaced = new HashSet<>();
                }
                replaced.addAll(rule.replaces());
            }
        }
        for (int i = 0; i < plan.count; i++)
        {
            final RateLimitRule rule = plan.rules[i];
            if (null == rule)
            {
                continue;
            }
            if (null != replaced && null != rule.name() && !rule.unlimited() && replaced.contains(rule.name()))
            {
                plan.rules[i] = null;
                plan.states[i] = null;
                plan.unlimited[i] = false;
                continue;
            }
            plan.stats[i] = stats(domain, statsKeys[i]);
            if (plan.limited(i))
            {
                final RateLimitDescriptor descriptor = request.getDescriptors(i);
                if (hashKeys)
                {
                    plan.keys[i] = descriptorKey.hash(domain, descriptor, shared[i], plan.sip);
                }
                if (textKeys)
                {
                    plan.keyTexts[i] = DescriptorKey.text(domain, descriptor, shared[i]);
                }
            }
        }
        return null;
    }

    /**
     * Envoy's {@code RateLimitDescriptor.is_negative_hits} (a bool, field {@value #IS_NEGATIVE_HITS_FIELD}), which
     * the generated classes in use predate: protobuf keeps it among the descriptor's unknown fields. A varint that
     * is not 0 (the last one, as protobuf reads a repeated scalar) means true; any other wire type means false.
     *
     * @param descriptor a descriptor.
     * @return true if its hits are a refund.
     */
    static boolean isNegativeHits(final RateLimitDescriptor descriptor)
    {
        final com.google.protobuf.UnknownFieldSet unknown = descriptor.getUnknownFields();
        if (!unknown.hasField(IS_NEGATIVE_HITS_FIELD))
        {
            return false;
        }
        final List<Long> varints = unknown.getField(IS_NEGATIVE_HITS_FIELD).getVarintList();
        return !varints.isEmpty() && 0 != varints.get(varints.size() - 1);
    }

    private RuleState override(final Snapshot s, final String domain, final Unit unit, final long requestsPerUnit)
    {
        final String id = requestsPerUnit + "/" + unit;
        final RuleState existing = s.overrides.get(id);
        if (null != existing)
        {
            return existing;
        }
        final boolean room = s.overrides.size() < MAX_OVERRIDES;
        final RateLimitRule rule = new RateLimitRule(domain, OVERRIDE_PREFIX + id, null, List.of(), unit, 1,
            room ? requestsPerUnit : 0, Math.max(1, requestsPerUnit), false, false, false, "request:0", false);
        if (!room)
        {
            return decider.state(rule, null); // refuses: 0 requests per unit, never held
        }
        return s.overrides.computeIfAbsent(id, k -> decider.state(rule, null));
    }

    private static String overrideStatsKey(final String domain, final RateLimitDescriptor descriptor)
    {
        final StringBuilder b = new StringBuilder(domain).append('.');
        for (int i = 0; i < descriptor.getEntriesCount(); i++)
        {
            final RateLimitDescriptor.Entry entry = descriptor.getEntries(i);
            if (i > 0)
            {
                b.append('.');
            }
            b.append(entry.getKey());
            if (!entry.getValue().isEmpty())
            {
                b.append('_').append(entry.getValue());
            }
        }
        return b.toString();
    }

    private RuleStats stats(final String domain, final String key)
    {
        final RuleStats existing = stats.get(key);
        if (null != existing)
        {
            return existing;
        }
        if (stats.size() >= MAX_STATS_KEYS)
        {
            return overflowStats;
        }
        try
        {
            return stats.computeIfAbsent(key, k -> new RuleStats(domain, k, statFile));
        }
        catch (final IllegalStateException full)
        {
            return overflowStats; // the stat file has no room left (keys added concurrently past the bound)
        }
    }

    /**
     * @return every statistics key's counters (a copy of the map, for readers).
     */
    Map<String, RuleStats> stats()
    {
        final Map<String, RuleStats> copy = new java.util.TreeMap<>(stats);
        if (overflowStats.totalHits.sum() > 0)
        {
            copy.put(overflowStats.key, overflowStats);
        }
        return copy;
    }

    long globalShadowCount()
    {
        return answers.globalShadowCount();
    }

    long requests()
    {
        return requests.get();
    }

    long invalidRequests()
    {
        return invalidRequests.get();
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
