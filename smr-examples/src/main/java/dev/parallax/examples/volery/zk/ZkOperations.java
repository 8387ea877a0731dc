package dev.parallax.examples.volery.zk;

import dev.parallax.examples.volery.Create;
import dev.parallax.examples.volery.CreateMode;
import dev.parallax.examples.volery.Delete;
import dev.parallax.examples.volery.Exists;
import dev.parallax.examples.volery.GetChildren;
import dev.parallax.examples.volery.GetData;
import dev.parallax.examples.volery.SetData;
import dev.parallax.examples.volery.Stat;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.Watcher;
import dev.parallax.examples.volery.ZkReply;
import dev.parallax.examples.volery.ZnodeWatches;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.jute.InputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.proto.Create2Response;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateResponse;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.ExistsResponse;
import org.apache.zookeeper.proto.GetACLRequest;
import org.apache.zookeeper.proto.GetACLResponse;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildren2Response;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetChildrenResponse;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetDataResponse;
import org.apache.zookeeper.proto.SetWatches;
import org.apache.zookeeper.proto.SetWatches2;
import org.apache.zookeeper.proto.AddWatchRequest;
import org.apache.zookeeper.proto.CheckWatchesRequest;
import org.apache.zookeeper.proto.ErrorResponse;
import org.apache.zookeeper.proto.RemoveWatchesRequest;
import org.apache.zookeeper.proto.SyncRequest;
import org.apache.zookeeper.proto.SyncResponse;

/**
 * Turns one decoded ZooKeeper request into a {@link VoleryCommand} for the backend and the backend's
 * {@link ZkReply} into ZooKeeper's response record, or answers at once what needs no backend: sync
 * (the connection writes replies in request order, so it is answered after every earlier request of
 * the session, and every backend operation is linearizable, a read sent as a query included: nothing
 * more to wait for), features Volery
 * does not have (UNIMPLEMENTED: TTL creates, setACL, a lone check, multiRead, reconfig, ...;
 * INVALIDACL: a create with an ACL other than world:anyone/ALL), and arguments the command encoding
 * refuses (BADARGUMENTS). Watches (exists, getData, getChildren with watch=true, addWatch,
 * removeWatches, checkWatches, setWatches and setWatches2) go through
 * the server's {@link ZkWatchHub}: a read that sets a watch carries the session's
 * {@link dev.parallax.examples.volery.Watcher}, and every backend reply waits until the events it may
 * make visible are written ({@link ZkWatchHub#beforeReply}).
 *
 * <p><b>Reads as queries.</b> Every request goes through its connection's {@link VoleryBackend.Lane}:
 * exists, getData, getChildren(2) without a watch and getACL are reads the lane may send as queries
 * (outside the order) where the session's FIFO order allows; writes, reads that set a watch and the
 * hub's watch registrations (addWatch, removeWatches, setWatches, setWatches2) are ordered requests
 * of the connection ({@link VoleryBackend.Lane#order}). Each read is counted in
 * {@code parallax.volery.zk.reads{path}}.
 *
 * <p>An ephemeral create (and a multi holding one) carries the session and its time-out: the
 * session enters the replicated session table with it, and this front end's ticks keep it alive
 * ({@link ZkSessions#ordered}). A multi is one {@link Multi} command ({@link ZkMulti}).
 *
 * <p>create2 is one backend command: the create's own reply carries the new node's Stat. Every
 * response built from a backend reply carries the reply's zxid ({@link ZkReply#zxid()}), errors
 * included, for the connection's reply header. Deviations: getACL answers the open ACL with the
 * node's Stat. Null data (a jute buffer of length -1) is stored as empty.
 *
 * <p><b>Threads.</b> Stateless apart from the backend and the metrics; {@link #execute} runs on the
 * connection's event loop (its lane's thread); never blocks. The translation of replies runs on the
 * thread completing the backend's future.
 */
final class ZkOperations {
    /** ZooKeeper's {@code Ids.OPEN_ACL_UNSAFE}: world:anyone with every permission. */
    static final List<ACL> OPEN_ACL = List.of(new ACL(Perms.ALL, new Id("world", "anyone")));

    /** ZooKeeper's {@code ZooDefs.Perms}. */
    static final class Perms {
        static final int ALL = 31;

        private Perms() {
        }
    }

    private final VoleryBackend backend;
    private final ZkMetrics metrics;
    private final ZkWatchHub watches;
    private final ZkSessions sessions;

    ZkOperations(VoleryBackend backend, ZkMetrics metrics, ZkWatchHub watches, ZkSessions sessions) {
        this.backend = backend;
        this.metrics = metrics;
        this.watches = watches;
        this.sessions = sessions;
    }

    /**
     * The lane of a new connection served by {@code loop} ({@link VoleryBackend#lane}), counting its
     * reads in the metrics.
     */
    VoleryBackend.Lane lane(EventLoop loop) {
        return backend.lane(loop, metrics::read);
    }

    /**
     * Executes request {@code xid} of type {@code op} whose body {@code in} holds, for session
     * {@code session} with time-out {@code timeoutMs}, through its connection's {@code lane}. Called
     * on the connection's event loop.
     *
     * @return a {@link ZkResponse} available now, or a {@code CompletableFuture<ZkResponse>} that the
     *         backend completes (possibly exceptionally)
     * @throws IOException if the body does not decode
     */
    Object execute(long session, int timeoutMs, VoleryBackend.Lane lane, int xid, ZkOp op, InputArchive in)
            throws IOException {
        switch (op) {
            case CREATE, CREATE2 -> {
                CreateRequest r = ZkWire.read(in, new CreateRequest());
                return create(session, timeoutMs, lane, xid, r, op == ZkOp.CREATE2);
            }
            case MULTI -> {
                MultiOperationRecord r = ZkWire.read(in, new MultiOperationRecord());
                return multi(session, timeoutMs, lane, xid, r);
            }
            case DELETE -> {
                DeleteRequest r = ZkWire.read(in, new DeleteRequest());
                return run(session, lane, xid, () -> new Delete(r.getPath(), r.getVersion()), reply -> null);
            }
            case EXISTS -> {
                ExistsRequest r = ZkWire.read(in, new ExistsRequest());
                Watcher w = r.getWatch() ? watches.watcher(session) : null;
                return run(session, lane, xid, () -> new Exists(r.getPath(), w),
                        reply -> new ExistsResponse(jute(reply.stat())));
            }
            case GET_DATA -> {
                GetDataRequest r = ZkWire.read(in, new GetDataRequest());
                Watcher w = r.getWatch() ? watches.watcher(session) : null;
                return run(session, lane, xid, () -> new GetData(r.getPath(), w),
                        reply -> new GetDataResponse(reply.data(), jute(reply.stat())));
            }
            case SET_DATA -> {
                SetDataRequest r = ZkWire.read(in, new SetDataRequest());
                return run(session, lane, xid, () -> new SetData(r.getPath(), orEmpty(r.getData()), r.getVersion()),
                        reply -> new SetDataResponse(jute(reply.stat())));
            }
            case GET_ACL -> {
                GetACLRequest r = ZkWire.read(in, new GetACLRequest());
                return run(session, lane, xid, () -> new Exists(r.getPath()),
                        reply -> new GetACLResponse(new ArrayList<>(OPEN_ACL), jute(reply.stat())));
            }
            case GET_CHILDREN -> {
                GetChildrenRequest r = ZkWire.read(in, new GetChildrenRequest());
                Watcher w = r.getWatch() ? watches.watcher(session) : null;
                return run(session, lane, xid, () -> new GetChildren(r.getPath(), w),
                        reply -> new GetChildrenResponse(new ArrayList<>(reply.children())));
            }
            case GET_CHILDREN2 -> {
                GetChildren2Request r = ZkWire.read(in, new GetChildren2Request());
                Watcher w = r.getWatch() ? watches.watcher(session) : null;
                return run(session, lane, xid, () -> new GetChildren(r.getPath(), w),
                        reply -> new GetChildren2Response(new ArrayList<>(reply.children()),
                                jute(reply.stat())));
            }
            case SYNC -> {
                SyncRequest r = ZkWire.read(in, new SyncRequest());
                return new ZkResponse(xid, 0, new SyncResponse(r.getPath()), 0);
            }
            case SET_WATCHES -> {
                SetWatches r = ZkWire.read(in, new SetWatches());
                return lane.order(() -> watches.setWatches(session, r.getDataWatches(), r.getExistWatches(),
                        r.getChildWatches(), List.of(), List.of()).thenApply(v -> ZkResponse.ok(xid)));
            }
            case SET_WATCHES2 -> {
                SetWatches2 r = ZkWire.read(in, new SetWatches2());
                return lane.order(() -> watches.setWatches(session, r.getDataWatches(), r.getExistWatches(),
                        r.getChildWatches(), r.getPersistentWatches(), r.getPersistentRecursiveWatches())
                        .thenApply(v -> ZkResponse.ok(xid)));
            }
            case ADD_WATCH -> {
                AddWatchRequest r = ZkWire.read(in, new AddWatchRequest());
                if (r.getMode() != ADD_WATCH_PERSISTENT && r.getMode() != ADD_WATCH_RECURSIVE) {
                    return ZkResponse.error(xid, ZkCodes.BADARGUMENTS);
                }
                return lane.order(() -> watches.addWatch(session, r.getPath(), r.getMode() == ADD_WATCH_RECURSIVE))
                        .thenCompose(reply -> watches.beforeReply(session, r.getPath(), r.getMode() == ADD_WATCH_RECURSIVE)
                                .thenApply(v -> reply.isOk() ? new ZkResponse(xid, 0, new ErrorResponse(0), reply.zxid())
                                        : new ZkResponse(xid, reply.code().code(), null, reply.zxid())));
            }
            case REMOVE_WATCHES -> {
                RemoveWatchesRequest r = ZkWire.read(in, new RemoveWatchesRequest());
                if (!validWatcherType(r.getType())) {
                    return ZkResponse.error(xid, ZkCodes.BADARGUMENTS);
                }
                return lane.order(() -> watches.removeWatches(session, r.getPath(), r.getType()))
                        .thenApply(err -> ZkResponse.error(xid, err));
            }
            case CHECK_WATCHES -> {
                CheckWatchesRequest r = ZkWire.read(in, new CheckWatchesRequest());
                if (!validWatcherType(r.getType())) {
                    return ZkResponse.error(xid, ZkCodes.BADARGUMENTS);
                }
                return watches.hasWatch(session, r.getPath(), r.getType()) ? ZkResponse.ok(xid)
                        : ZkResponse.error(xid, ZkCodes.NOWATCHER);
            }
            case CREATE_CONTAINER -> {
                CreateRequest r = ZkWire.read(in, new CreateRequest());
                return create(session, timeoutMs, lane, xid, r, true);
            }
            case CREATE_TTL -> {
                metrics.unsupported(ZkMetrics.Unsupported.CREATE_MODE);
                return ZkResponse.error(xid, ZkCodes.UNIMPLEMENTED);
            }
            default -> {
                metrics.unsupported(ZkMetrics.Unsupported.OPERATION);
                return ZkResponse.error(xid, ZkCodes.UNIMPLEMENTED);
            }
        }
    }

    /** A multi as one {@link Multi} command; the response's header code is OK, its results say how it went. */
    private Object multi(long session, int timeoutMs, VoleryBackend.Lane lane, int xid, MultiOperationRecord r) {
        ZkMulti.Translated t = ZkMulti.translate(r, session, timeoutMs);
        if (t.multi() == null) {
            metrics.unsupported(t.error() == ZkCodes.INVALIDACL ? ZkMetrics.Unsupported.ACL
                    : ZkMetrics.Unsupported.OPERATION);
            return ZkResponse.error(xid, t.error());
        }
        if (t.ephemeral()) {
            sessions.ordered(session);
        }
        return lane.submit(t.multi()).thenCompose(reply -> {
            ZkResponse response = new ZkResponse(xid, 0, ZkMulti.response(t, reply), reply.zxid());
            return watches.beforeReply(session, t.multi()).thenApply(v -> response);
        });
    }

    private Object create(long session, int timeoutMs, VoleryBackend.Lane lane, int xid, CreateRequest r,
                          boolean withStat) {
        CreateMode mode = CreateMode.fromFlag(r.getFlags());
        if (mode == null) {
            return ZkResponse.error(xid, ZkCodes.BADARGUMENTS);
        }
        if (!mode.isSupported()) {
            metrics.unsupported(ZkMetrics.Unsupported.CREATE_MODE);
            return ZkResponse.error(xid, ZkCodes.UNIMPLEMENTED);
        }
        if (!isOpen(r.getAcl())) {
            metrics.unsupported(ZkMetrics.Unsupported.ACL);
            return ZkResponse.error(xid, ZkCodes.INVALIDACL);
        }
        if (mode.isEphemeral()) {
            sessions.ordered(session); // before it is sent: the session's ticks keep it alive from now on
        }
        return run(session, lane, xid, () -> mode.isEphemeral()
                ? new Create(r.getPath(), orEmpty(r.getData()), mode, 0L, session, timeoutMs)
                : new Create(r.getPath(), orEmpty(r.getData()), mode), reply -> withStat
                ? new Create2Response(reply.path(), jute(statOf(reply)))
                : new CreateResponse(reply.path()));
    }

    /** A create2 reply from a backend that returns no Stat (a version-1 reply) answers an all-zero one. */
    private static Stat statOf(ZkReply created) {
        return created.stat() != null ? created.stat() : new Stat(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    private Object run(long session, VoleryBackend.Lane lane, int xid, Supplier<VoleryCommand> build,
                       Function<ZkReply, Record> onOk) {
        VoleryCommand command = command(build);
        if (command == null) {
            return ZkResponse.error(xid, ZkCodes.BADARGUMENTS);
        }
        return submit(session, lane, xid, command, onOk);
    }

    /**
     * The backend's reply to {@code command}, sent through the connection's {@code lane}, as a
     * response: {@code onOk}'s body (null for none) on success, the error code otherwise; either way
     * with the reply's zxid. A read that set a watch is recorded with the hub; the response completes
     * after the watch events the command may make visible to the session are written (a query's too:
     * it is linearizable, so the polls sent after its reply see every write it saw).
     */
    private CompletableFuture<ZkResponse> submit(long session, VoleryBackend.Lane lane, int xid, VoleryCommand command,
                                                 Function<ZkReply, Record> onOk) {
        if (command.watcher() != null) {
            metrics.read(false);
            watches.beforeSetting(command);
            watches.arming(session, xid, command);
        }
        return lane.submit(command).thenCompose(reply -> {
            if (command.watcher() != null) {
                watches.onWatchRead(session, command, reply);
            }
            ZkResponse response = reply.isOk()
                    ? new ZkResponse(xid, 0, onOk.apply(reply), reply.zxid())
                    : new ZkResponse(xid, reply.code().code(), null, reply.zxid());
            return watches.beforeReply(session, command).thenApply(v -> response);
        });
    }

    /** ZooKeeper's {@code AddWatchMode.PERSISTENT}. */
    private static final int ADD_WATCH_PERSISTENT = 0;
    /** ZooKeeper's {@code AddWatchMode.PERSISTENT_RECURSIVE}. */
    private static final int ADD_WATCH_RECURSIVE = 1;

    /** ZooKeeper's {@code WatcherType}: 1 children, 2 data, 3 any. */
    private static boolean validWatcherType(int type) {
        return type >= ZnodeWatches.REMOVE_CHILDREN && type <= ZnodeWatches.REMOVE_ANY;
    }

    /** The command, or null if its arguments are out of the encoding's bounds (or the path is null). */
    private static VoleryCommand command(Supplier<VoleryCommand> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException | NullPointerException e) {
            return null;
        }
    }

    private static byte[] orEmpty(byte[] data) {
        return data == null ? new byte[0] : data;
    }

    /** Whether every entry is world:anyone with all permissions (and there is one at least). */
    static boolean isOpen(List<ACL> acl) {
        if (acl == null || acl.isEmpty()) {
            return false;
        }
        for (ACL a : acl) {
            Id id = a.getId();
            if (a.getPerms() != Perms.ALL || id == null || !"world".equals(id.getScheme()) || !"anyone".equals(id.getId())) {
                return false;
            }
        }
        return true;
    }

    /** The model's Stat as ZooKeeper's record (same fields, same order). */
    static org.apache.zookeeper.data.Stat jute(Stat s) {
        return new org.apache.zookeeper.data.Stat(s.czxid(), s.mzxid(), s.ctime(), s.mtime(), s.version(), s.cversion(),
                s.aversion(), s.ephemeralOwner(), s.dataLength(), s.numChildren(), s.pzxid());
    }
}
