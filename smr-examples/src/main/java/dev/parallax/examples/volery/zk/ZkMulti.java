package dev.parallax.examples.volery.zk;

import dev.parallax.examples.volery.Check;
import dev.parallax.examples.volery.Create;
import dev.parallax.examples.volery.CreateMode;
import dev.parallax.examples.volery.Delete;
import dev.parallax.examples.volery.Multi;
import dev.parallax.examples.volery.SetData;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.ZkReply;
import java.util.ArrayList;
import java.util.List;
import org.apache.jute.Record;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.MultiResponse;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.SetDataRequest;

/**
 * ZooKeeper's multi request and response ({@code MultiOperationRecord}, {@code MultiResponse}) as
 * Volery's {@link Multi} and back. Operations: create and create2 (persistent and ephemeral modes,
 * open ACL), delete, setData, check. A multi holding another operation (container or TTL creates,
 * multiRead's reads) answers UNIMPLEMENTED as a whole, one with another ACL INVALIDACL, one out of
 * the command encoding's bounds BADARGUMENTS, with nothing executed. The response's header code is OK
 * and each result says how its operation went (ZooKeeper's FinalRequestProcessor does the same): on
 * success each operation's result (create2 with its Stat), on failure an ErrorResult per
 * operation.
 *
 * <p>Stateless; safe from any thread; never blocks.
 */
final class ZkMulti {
    /** A multi translated: the command, or the code answering the whole request. */
    record Translated(Multi multi, int error, boolean ephemeral, List<Integer> types) {
        static Translated refused(int error) {
            return new Translated(null, error, false, List.of());
        }
    }

    /** ZooKeeper's opcode for create2. */
    private static final int CREATE2 = 15;

    private ZkMulti() {
    }

    /** {@code request} as a {@link Multi} for session {@code session} whose time-out is {@code timeoutMs}. */
    static Translated translate(MultiOperationRecord request, long session, int timeoutMs) {
        List<VoleryCommand> ops = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        boolean ephemeral = false;
        try {
            for (Op op : request) {
                Record r = op.toRequestRecord();
                types.add(op.getType());
                switch (op.getType()) {
                    case VoleryCommand.OP_CREATE, CREATE2 -> {
                        CreateRequest c = (CreateRequest) r;
                        CreateMode mode = CreateMode.fromFlag(c.getFlags());
                        if (mode == null) {
                            return Translated.refused(ZkCodes.BADARGUMENTS);
                        }
                        if (!mode.isSupported()) {
                            return Translated.refused(ZkCodes.UNIMPLEMENTED);
                        }
                        if (!ZkOperations.isOpen(c.getAcl())) {
                            return Translated.refused(ZkCodes.INVALIDACL);
                        }
                        byte[] data = c.getData() == null ? new byte[0] : c.getData();
                        ephemeral |= mode.isEphemeral();
                        ops.add(mode.isEphemeral()
                                ? new Create(c.getPath(), data, mode, 0L, session, timeoutMs)
                                : new Create(c.getPath(), data, mode));
                    }
                    case VoleryCommand.OP_DELETE -> {
                        DeleteRequest d = (DeleteRequest) r;
                        ops.add(new Delete(d.getPath(), d.getVersion()));
                    }
                    case VoleryCommand.OP_SET_DATA -> {
                        SetDataRequest s = (SetDataRequest) r;
                        ops.add(new SetData(s.getPath(), s.getData() == null ? new byte[0] : s.getData(), s.getVersion()));
                    }
                    case VoleryCommand.OP_CHECK -> {
                        CheckVersionRequest c = (CheckVersionRequest) r;
                        ops.add(new Check(c.getPath(), c.getVersion()));
                    }
                    default -> {
                        return Translated.refused(ZkCodes.UNIMPLEMENTED);
                    }
                }
            }
            return ops.isEmpty() ? Translated.refused(ZkCodes.BADARGUMENTS)
                    : new Translated(new Multi(ops), 0, ephemeral, List.copyOf(types));
        } catch (IllegalArgumentException | NullPointerException e) {
            return Translated.refused(ZkCodes.BADARGUMENTS);
        }
    }

    /** The response to the translated {@code request}, whose reply is {@code reply}. */
    static MultiResponse response(Translated request, ZkReply reply) {
        Multi multi = request.multi();
        MultiResponse response = new MultiResponse();
        List<ZkReply> results = reply.results();
        if (results == null || results.size() != multi.ops().size()) {
            // a reply that is not a multi's (MARSHALLINGERROR from a broken reply): every operation failed
            for (int i = 0; i < multi.ops().size(); i++) {
                response.add(new OpResult.ErrorResult(reply.code().code()));
            }
            return response;
        }
        for (int i = 0; i < results.size(); i++) {
            ZkReply r = results.get(i);
            VoleryCommand op = multi.ops().get(i);
            if (!reply.isOk()) {
                response.add(new OpResult.ErrorResult(r.code().code()));
            } else if (op instanceof Create) {
                response.add(request.types().get(i) == CREATE2 && r.stat() != null
                        ? new OpResult.CreateResult(r.path(), ZkOperations.jute(r.stat()))
                        : new OpResult.CreateResult(r.path()));
            } else if (op instanceof SetData) {
                response.add(new OpResult.SetDataResult(ZkOperations.jute(r.stat())));
            } else if (op instanceof Delete) {
                response.add(new OpResult.DeleteResult());
            } else {
                response.add(new OpResult.CheckResult());
            }
        }
        return response;
    }
}
