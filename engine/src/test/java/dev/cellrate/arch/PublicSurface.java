package dev.cellrate.arch;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Counts the engine's public surface: the public (and, on a non-final public type, protected) methods,
 * constructors and fields declared by the public types of the exported packages, nested public types included,
 * and the public methods they inherit from a package-private superclass (which a user calls on the public type).
 * Synthetic and bridge members, and the {@code values}/{@code valueOf} every enum gets, are not counted.
 * <p>
 * The exported packages are read from {@code src/main/module/module-info.java}; the classes from the compiled
 * main classes. Run: {@code java -cp engine/target/classes:engine/target/test-classes:<agrona>:<jctools>
 * dev.cellrate.arch.PublicSurface engine} (or through {@code PublicSurfaceTest}).
 */
public final class PublicSurface
{
    private static final Pattern EXPORTS = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    private PublicSurface()
    {
    }

    /**
     * @param moduleDir the engine module's directory.
     * @return the exported package names, in declaration order.
     * @throws IOException if the descriptor cannot be read.
     */
    public static List<String> exportedPackages(final Path moduleDir) throws IOException
    {
        final String descriptor = Files.readString(moduleDir.resolve("src/main/module/module-info.java"));
        final List<String> packages = new ArrayList<>();
        final Matcher matcher = EXPORTS.matcher(descriptor);
        while (matcher.find())
        {
            packages.add(matcher.group(1));
        }
        return packages;
    }

    /**
     * @param moduleDir the engine module's directory.
     * @return per public type (binary name), the number of members a user can reach.
     * @throws Exception if the classes cannot be read or loaded.
     */
    public static TreeMap<String, Integer> count(final Path moduleDir) throws Exception
    {
        final Path classes = moduleDir.resolve("target/classes");
        final TreeMap<String, Integer> perType = new TreeMap<>();
        for (final String pkg : exportedPackages(moduleDir))
        {
            final Path dir = classes.resolve(pkg.replace('.', '/'));
            final List<Path> files;
            try (Stream<Path> list = Files.list(dir))
            {
                files = list.filter(p -> p.toString().endsWith(".class")).sorted().toList();
            }
            for (final Path file : files)
            {
                final String simple = file.getFileName().toString().replace(".class", "");
                if (simple.equals("package-info"))
                {
                    continue;
                }
                final Class<?> type = Class.forName(pkg + "." + simple, false, PublicSurface.class.getClassLoader());
                if (reachable(type))
                {
                    perType.put(type.getName(), members(type));
                }
            }
        }
        return perType;
    }

    private static boolean reachable(final Class<?> type)
    {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass())
        {
            if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isLocalClass() || t.isSynthetic())
            {
                return false;
            }
        }
        return true;
    }

    /** Members counted so far by kind: methods, constructors, fields. */
    static final int[] BY_KIND = new int[3];

    private static int members(final Class<?> type)
    {
        int n = 0;
        final int[] kind = BY_KIND;
        for (final Method m : type.getDeclaredMethods())
        {
            if (m.isSynthetic() || m.isBridge())
            {
                continue;
            }
            if (type.isEnum() && (m.getName().equals("values") || m.getName().equals("valueOf")) &&
                Modifier.isStatic(m.getModifiers()))
            {
                continue;
            }
            n += visible(type, m) ? 1 : 0;
        }
        for (Class<?> s = type.getSuperclass(); null != s && !Modifier.isPublic(s.getModifiers()); s = s.getSuperclass())
        {
            for (final Method m : s.getDeclaredMethods())
            {
                n += !m.isSynthetic() && visible(type, m) && !declares(type, m) ? 1 : 0;
            }
        }
        kind[0] += n;
        final int afterMethods = n;
        for (final Constructor<?> c : type.getDeclaredConstructors())
        {
            n += !c.isSynthetic() && !type.isEnum() && visible(type, c) ? 1 : 0;
        }
        kind[1] += n - afterMethods;
        final int afterConstructors = n;
        for (final Field f : type.getDeclaredFields())
        {
            n += !f.isSynthetic() && visible(type, f) ? 1 : 0;
        }
        kind[2] += n - afterConstructors;
        return n;
    }

    private static boolean declares(final Class<?> type, final Method inherited)
    {
        for (final Method m : type.getDeclaredMethods())
        {
            if (!m.isBridge() && m.getName().equals(inherited.getName()) &&
                java.util.Arrays.equals(m.getParameterTypes(), inherited.getParameterTypes()))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean visible(final Class<?> type, final Member member)
    {
        final int modifiers = member.getModifiers();
        return Modifier.isPublic(modifiers) ||
            (Modifier.isProtected(modifiers) && !Modifier.isFinal(type.getModifiers()) && !type.isEnum());
    }

    /**
     * @param args the engine module's directory (default {@code engine}).
     * @throws Exception if the classes cannot be read.
     */
    public static void main(final String[] args) throws Exception
    {
        final TreeMap<String, Integer> perType = count(Path.of(args.length > 0 ? args[0] : "engine"));
        int total = 0;
        for (final var e : perType.entrySet())
        {
            System.out.println(String.format(Locale.ROOT, "%4d %s", e.getValue(), e.getKey()));
            total += e.getValue();
        }
        System.out.println("public types " + perType.size() + ", members " + total + " (methods " + BY_KIND[0] +
            ", constructors " + BY_KIND[1] + ", fields " + BY_KIND[2] + ")");
    }
}
