package dev.cellrate.arch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The package graph of the engine's main sources as a reader sees it: package A uses package B when a source
 * file of A imports a type of B (an import a Javadoc link alone needs counts) or names one by its qualified name
 * in code. The class files miss part of this graph: a compile-time constant ({@code Result.NEVER}) is copied into
 * the class that reads it, so ArchUnit sees no dependency on its owner.
 */
final class SourceImports
{
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT =
        Pattern.compile("^import\\s+(?:static\\s+)?((?:[a-z]\\w*\\.)+)[A-Z]\\w*", Pattern.MULTILINE);
    private static final Pattern QUALIFIED = Pattern.compile("\\b((?:dev\\.cellrate)(?:\\.[a-z]\\w*)*)\\.[A-Z]\\w*");
    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\\\n]|\\\\.)*\"");

    private SourceImports()
    {
    }

    /**
     * @param moduleDir the engine module's directory.
     * @param root      the root package: only uses of its packages are kept.
     * @return per package, the other packages it uses, each with the files that use it ("File.java uses x.Y").
     * @throws IOException if a source cannot be read.
     */
    static Map<String, Map<String, Set<String>>> graph(final Path moduleDir, final String root) throws IOException
    {
        final Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
        final List<Path> sources = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(moduleDir.resolve("src/main/java")))
        {
            walk.filter(path -> path.toString().endsWith(".java")).forEach(sources::add);
        }
        for (final Path source : sources)
        {
            final String text = Files.readString(source);
            final Matcher pkg = PACKAGE.matcher(text);
            if (!pkg.find())
            {
                continue;
            }
            final String from = pkg.group(1);
            final Map<String, Set<String>> uses = graph.computeIfAbsent(from, k -> new TreeMap<>());
            final String file = source.getFileName().toString();
            final Matcher imports = IMPORT.matcher(text);
            while (imports.find())
            {
                add(uses, from, root, imports.group(1).substring(0, imports.group(1).length() - 1),
                    file + " imports " + imports.group().replaceFirst("^import\\s+(static\\s+)?", ""));
            }
            final String code = STRING.matcher(COMMENT.matcher(text).replaceAll(" ")).replaceAll("\"\"")
                .replaceAll("(?m)^(package|import)\\s[^;]*;", "");
            final Matcher qualified = QUALIFIED.matcher(code);
            while (qualified.find())
            {
                add(uses, from, root, qualified.group(1), file + " names " + qualified.group());
            }
        }
        return graph;
    }

    private static void add(
        final Map<String, Set<String>> uses, final String from, final String root, final String to, final String why)
    {
        if (!to.equals(from) && (to.equals(root) || to.startsWith(root + ".")))
        {
            uses.computeIfAbsent(to, k -> new TreeSet<>()).add(why);
        }
    }

    /**
     * @param graph from {@link #graph}.
     * @return every cycle of two or more packages (a strongly connected component), described with the uses that
     * close it; empty if the graph has none.
     */
    static List<String> cycles(final Map<String, Map<String, Set<String>>> graph)
    {
        final List<String> found = new ArrayList<>();
        final Set<String> done = new TreeSet<>();
        for (final String start : graph.keySet())
        {
            if (done.contains(start))
            {
                continue;
            }
            final Set<String> component = new TreeSet<>();
            for (final String other : graph.keySet())
            {
                if (reaches(graph, start, other) && reaches(graph, other, start))
                {
                    component.add(other);
                }
            }
            done.addAll(component);
            if (component.size() > 1)
            {
                final StringBuilder text = new StringBuilder("cycle " + component + ":");
                for (final String from : component)
                {
                    for (final Map.Entry<String, Set<String>> use : graph.get(from).entrySet())
                    {
                        if (component.contains(use.getKey()))
                        {
                            final List<String> uses = new ArrayList<>(use.getValue());
                            text.append("\n  ").append(from).append(" -> ").append(use.getKey()).append(" ")
                                .append(uses.size() <= 2 ? uses : uses.subList(0, 2) + " and " + (uses.size() - 2) +
                                    " more");
                        }
                    }
                }
                found.add(text.toString());
            }
        }
        return found;
    }

    private static boolean reaches(final Map<String, Map<String, Set<String>>> graph, final String from, final String to)
    {
        if (from.equals(to))
        {
            return true;
        }
        final Set<String> seen = new TreeSet<>();
        final List<String> queue = new ArrayList<>(List.of(from));
        while (!queue.isEmpty())
        {
            final String next = queue.remove(queue.size() - 1);
            for (final String used : graph.getOrDefault(next, Map.of()).keySet())
            {
                if (used.equals(to))
                {
                    return true;
                }
                if (seen.add(used))
                {
                    queue.add(used);
                }
            }
        }
        return false;
    }
}
