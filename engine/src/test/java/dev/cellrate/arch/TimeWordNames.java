package dev.cellrate.arch;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ModifiersTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreeScanner;

import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Finds the names in the engine's exported signatures that name a TAT (the cell's internal time word): a
 * method, field, record component or parameter whose name has the word {@code tat} among its camel-case or
 * underscore-separated parts ({@code tatNs}, {@code initialTatNs}, {@code FRESH_TAT_NS}). Parameter names are
 * not in the class files, so this reads the sources of the exported packages with javac's parser.
 * <p>
 * A member counts as exported when a user can call it: a public member of a public type reachable from its
 * package (nested types included), a protected one of a non-final such type, members of interfaces, record
 * components, and the public or protected members of a package-private class that a reachable type extends.
 */
final class TimeWordNames
{
    private TimeWordNames()
    {
    }

    /**
     * @param name an identifier.
     * @return true iff one of its words is {@code tat}, in any case.
     */
    static boolean namesATat(final String name)
    {
        for (final String word : name.split("_|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])"))
        {
            if (word.equalsIgnoreCase("tat") || word.equalsIgnoreCase("tats"))
            {
                return true;
            }
        }
        return false;
    }

    private record Type(String pkg, String name, boolean reachable, boolean isFinal, String superName,
        List<String> names)
    {
    }

    /**
     * @param moduleDir the engine module's directory.
     * @param packages  the exported packages.
     * @return one line per exported name that names a TAT: {@code package.Type#member(parameter)}.
     * @throws IOException if a source cannot be read.
     */
    static List<String> find(final Path moduleDir, final Set<String> packages) throws IOException
    {
        final List<Path> sources = new ArrayList<>();
        for (final String pkg : packages)
        {
            final Path dir = moduleDir.resolve("src/main/java").resolve(pkg.replace('.', '/'));
            try (Stream<Path> list = Files.list(dir))
            {
                list.filter(p -> p.toString().endsWith(".java")).sorted().forEach(sources::add);
            }
        }
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final List<Type> types = new ArrayList<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8))
        {
            final JavacTask task = (JavacTask)javac.getTask(
                null, files, null, List.of("-proc:none"), null, files.getJavaFileObjectsFromPaths(sources));
            for (final CompilationUnitTree unit : task.parse())
            {
                final String pkg = null == unit.getPackageName() ? "" : unit.getPackageName().toString();
                unit.accept(new Scanner(pkg, types), null);
            }
        }
        final Map<String, Type> byName = new HashMap<>();
        types.forEach(type -> byName.put(type.pkg() + "." + type.name(), type));
        final Set<String> exposed = new HashSet<>();
        for (final Type type : types)
        {
            if (type.reachable())
            {
                for (Type s = byName.get(type.pkg() + "." + type.superName()); null != s && !s.reachable() &&
                    exposed.add(s.pkg() + "." + s.name()); s = byName.get(s.pkg() + "." + s.superName()))
                {
                    // every package-private base up to the first public one lends its members to the type
                }
            }
        }
        final List<String> found = new ArrayList<>();
        for (final Type type : types)
        {
            if (type.reachable() || exposed.contains(type.pkg() + "." + type.name()))
            {
                type.names().forEach(name -> found.add(type.pkg() + "." + type.name() + "#" + name));
            }
        }
        return found;
    }

    private static final class Scanner extends TreeScanner<Void, Void>
    {
        private final String pkg;
        private final List<Type> types;
        private final Deque<ClassTree> enclosing = new ArrayDeque<>();
        private final Deque<String> typeNames = new ArrayDeque<>();
        private final Deque<Boolean> reachable = new ArrayDeque<>();

        Scanner(final String pkg, final List<Type> types)
        {
            this.pkg = pkg;
            this.types = types;
        }

        public Void visitClass(final ClassTree tree, final Void unused)
        {
            final ClassTree outer = enclosing.peek();
            final boolean inInterface = null != outer && isInterface(outer);
            final boolean open = (tree.getModifiers().getFlags().contains(Modifier.PUBLIC) || inInterface) &&
                (reachable.isEmpty() || reachable.peek());
            final String name = enclosing.isEmpty() ?
                tree.getSimpleName().toString() : typeNames.peek() + "$" + tree.getSimpleName();
            final boolean isFinal = tree.getModifiers().getFlags().contains(Modifier.FINAL) ||
                tree.getKind() == Tree.Kind.RECORD || tree.getKind() == Tree.Kind.ENUM;
            final List<String> names = new ArrayList<>();
            for (final Tree member : tree.getMembers())
            {
                if (member instanceof MethodTree method && visible(tree, method.getModifiers(), isFinal))
                {
                    final String methodName = method.getName().toString();
                    final String shown = "<init>".equals(methodName) ? tree.getSimpleName().toString() : methodName;
                    if (namesATat(methodName))
                    {
                        names.add(shown + "()");
                    }
                    for (final VariableTree parameter : method.getParameters())
                    {
                        if (namesATat(parameter.getName().toString()))
                        {
                            names.add(shown + "(" + parameter.getName() + ")");
                        }
                    }
                }
                else if (member instanceof VariableTree field && namesATat(field.getName().toString()) &&
                    (visible(tree, field.getModifiers(), isFinal) ||
                        (tree.getKind() == Tree.Kind.RECORD && !field.getModifiers().getFlags().contains(Modifier.STATIC))))
                {
                    names.add(field.getName().toString());
                }
            }
            types.add(new Type(pkg, name, open, isFinal,
                null == tree.getExtendsClause() ? "" : simple(tree.getExtendsClause().toString()), names));
            enclosing.push(tree);
            typeNames.push(name);
            reachable.push(open);
            try
            {
                for (final Tree member : tree.getMembers())
                {
                    if (member instanceof ClassTree)
                    {
                        scan(member, null);
                    }
                }
            }
            finally
            {
                enclosing.pop();
                typeNames.pop();
                reachable.pop();
            }
            return null;
        }

        private static boolean isInterface(final ClassTree tree)
        {
            return tree.getKind() == Tree.Kind.INTERFACE || tree.getKind() == Tree.Kind.ANNOTATION_TYPE;
        }

        private static boolean visible(final ClassTree owner, final ModifiersTree modifiers, final boolean isFinal)
        {
            final Set<Modifier> flags = modifiers.getFlags();
            if (isInterface(owner))
            {
                return !flags.contains(Modifier.PRIVATE);
            }
            return flags.contains(Modifier.PUBLIC) || (flags.contains(Modifier.PROTECTED) && !isFinal);
        }

        private static String simple(final String typeName)
        {
            final String raw = typeName.replaceAll("<.*", "");
            return raw.substring(raw.lastIndexOf('.') + 1);
        }
    }
}
