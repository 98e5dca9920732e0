package dev.cellrate.spring;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.KeyedCompositeRateLimiter;
import dev.cellrate.hash.SipHash;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides {@link RateLimited} calls: each method's limits all-or-nothing on one
 * {@link KeyedCompositeRateLimiter} over the limits' own tables, keys from the annotations' expressions.
 * <p>
 * A method's plan (its limits, parsed expressions and composite) is built on its first call; an unknown limit
 * name, a limit that is not local enforce or dry-run, differing costs or a cost outside a limit's burst throw
 * {@link IllegalStateException} naming the method and the annotation.
 */
public final class RateLimitedInterceptor implements MethodInterceptor
{
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

    private final LimitRegistry registry;
    private final SipHash keyHash = SipHash.random();
    private final ConcurrentHashMap<Method, Plan> plans = new ConcurrentHashMap<>();
    private final ThreadLocal<long[]> keys = ThreadLocal.withInitial(() -> new long[64]);

    /**
     * @param registry the limits.
     */
    public RateLimitedInterceptor(final LimitRegistry registry)
    {
        this.registry = registry;
    }

    public Object invoke(final MethodInvocation invocation) throws Throwable
    {
        final Method method = invocation.getMethod();
        final Object target = invocation.getThis();
        final Method specific = null == target ? method : AopUtils.getMostSpecificMethod(method, target.getClass());
        final Plan plan = plans.computeIfAbsent(specific, this::plan);
        final long[] k = keys.get();
        for (int i = 0; i < plan.legs.length; i++)
        {
            k[i] = key(plan, i, specific, invocation.getArguments(), target);
        }
        final long nowNs = plan.legs[0].clock.nanoTime();
        final long code = plan.composite.tryAcquire(k, plan.cost, nowNs);
        if (Result.isAdmitted(code))
        {
            for (final NamedLimit leg : plan.legs)
            {
                leg.stats.record(code);
            }
            return invocation.proceed();
        }
        // which leg refused: the first that would still refuse this cost at the same instant
        int refusingLeg = plan.legs.length - 1;
        long retryAfterNs = code > 0 ? code : Long.MAX_VALUE;
        for (int i = 0; i < plan.legs.length; i++)
        {
            final long peek = plan.legs[i].local.peek(k[i], plan.cost, nowNs);
            if (!Result.isAdmitted(peek))
            {
                refusingLeg = i;
                retryAfterNs = peek > 0 ? peek : Long.MAX_VALUE;
                break;
            }
        }
        final NamedLimit refusing = plan.legs[refusingLeg];
        refusing.stats.record(k[refusingLeg], Long.MAX_VALUE == retryAfterNs ? Result.NEVER : retryAfterNs);
        final Limit limit = refusing.limit();
        final long resetAfterNs = Long.MAX_VALUE == retryAfterNs ? 0 :
            Math.max(0, retryAfterNs + limit.toleranceNs() + limit.emissionIntervalNs() -
            plan.cost * limit.emissionIntervalNs());
        throw new RateLimitedException(refusing, retryAfterNs, resetAfterNs);
    }

    private long key(final Plan plan, final int leg, final Method method, final Object[] args, final Object target)
    {
        final Expression expression = plan.keys[leg];
        if (null == expression)
        {
            return keyHash.hash(plan.legs[leg].fallback);
        }
        Object value;
        try
        {
            value = expression.getValue(new MethodBasedEvaluationContext(target, method, args, NAMES));
        }
        catch (final RuntimeException ex)
        {
            value = null;
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte)
        {
            return ((Number)value).longValue();
        }
        final String s = null == value ? null : value.toString();
        return keyHash.hash(null == s || s.isEmpty() || s.length() > LimitRegistry.MAX_KEY_LENGTH ?
            plan.legs[leg].fallback : s);
    }

    private Plan plan(final Method method)
    {
        final Set<RateLimited> annotations = AnnotatedElementUtils.findMergedRepeatableAnnotations(method,
            RateLimited.class);
        final String where = method.getDeclaringClass().getName() + '.' + method.getName();
        if (annotations.isEmpty() || annotations.size() > 64)
        {
            throw new IllegalStateException(where + ": 1 to 64 @RateLimited annotations expected but found " +
                annotations.size());
        }
        final NamedLimit[] legs = new NamedLimit[annotations.size()];
        final Expression[] exprs = new Expression[legs.length];
        final KeyedRateLimiter[] locals = new KeyedRateLimiter[legs.length];
        long cost = -1;
        int i = 0;
        for (final RateLimited a : annotations)
        {
            final String at = where + " @RateLimited(name = \"" + a.name() + "\")";
            final NamedLimit limit = registry.get(a.name());
            if (null == limit)
            {
                throw new IllegalStateException(at + ": name must be one of cellrate.limits " + registry.names());
            }
            if (null == limit.local)
            {
                throw new IllegalStateException(at + ": the limit must be local (backend local, mode enforce, " +
                    "dry-run or charge-after)");
            }
            if (-1 != cost && a.cost() != cost)
            {
                throw new IllegalStateException(at + ": cost must be the same on every @RateLimited of the method (" +
                    cost + ") but was " + a.cost());
            }
            cost = a.cost();
            if (cost < 1 || cost > limit.limit().burst())
            {
                throw new IllegalStateException(at + ": cost must be in [1, " + limit.limit().burst() + "] but was " + cost);
            }
            legs[i] = limit;
            locals[i] = limit.local;
            exprs[i] = a.key().isEmpty() ? null : LimitRegistry.parse(at + " key", a.key());
            i++;
        }
        return new Plan(legs, exprs, new KeyedCompositeRateLimiter(locals), cost);
    }

    private record Plan(NamedLimit[] legs, Expression[] keys, KeyedCompositeRateLimiter composite, long cost)
    {
    }
}
