/**
 * cellrate's engine: lock-free, allocation-free rate limiters. Exports the API packages only; the decision
 * arithmetic of GCRA ({@code dev.cellrate.gcra}), the seqlock ({@code dev.cellrate.lock}), the cell layout
 * ({@code dev.cellrate.layout}), the keyed
 * table's layout and raw slot API ({@code dev.cellrate.table}), the table in a mapped file
 * ({@code dev.cellrate.table.mapped}) and the configuration checks ({@code dev.cellrate.check}) stay inside the
 * module.
 * <p>
 * Every JVM that runs it needs {@code --add-exports java.base/jdk.internal.misc=org.agrona} on the module
 * path ({@code =ALL-UNNAMED} on the class path): see {@link dev.cellrate.layout.CellArray#JVM_OPTION}.
 */
module dev.cellrate
{
    requires transitive org.agrona;
    requires org.jctools.core;

    exports dev.cellrate;
    exports dev.cellrate.composite;
    exports dev.cellrate.concurrency;
    exports dev.cellrate.hash;
    exports dev.cellrate.http;
    exports dev.cellrate.observe;
    exports dev.cellrate.reconfigure;
    exports dev.cellrate.release;
    exports dev.cellrate.stat;
    exports dev.cellrate.tcm;
    exports dev.cellrate.translate;
    exports dev.cellrate.warmup;
    exports dev.cellrate.window;
}
