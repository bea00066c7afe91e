/**
 * The API reference page's own script (a file rather than an inline block, so that script-src stays
 * 'self'): Swagger UI on the served document, with no validator badge (it would call
 * validator.swagger.io) and no top bar (its URL box loads other documents).
 *
 * From 150 rows (tags plus the operations of open tags) Swagger UI 5 virtualizes the operation list:
 * only the rows near the viewport are in the page, so find-in-page, a link to an operation further
 * down and a script waiting for a tag see nothing until the reader scrolls there. This document has
 * more rows than that, few enough to render at once, so `EveryOperation` puts back the package's
 * own unvirtualized rendering (the same components, selectors and method filter).
 */
export const API_DOCS_INITIALIZER = `function EveryOperation(system) {
  var h = system.React.createElement;
  function operations(props) {
    var tagged = props.specSelectors.taggedOperations();
    if (tagged.size === 0) return h('h3', null, ' No operations defined in spec!');
    var methods = props.specSelectors.validOperationMethods();
    var OperationTag = props.getComponent('OperationTag');
    var OperationContainer = props.getComponent('OperationContainer', true);
    function operation(tag, op) {
      var path = op.get('path');
      var method = op.get('method');
      if (methods.indexOf(method) === -1) return null;
      var key = path + '-' + method;
      return h(OperationContainer, { key: key, specPath: op.get('specPath'), op: op, path: path, method: method, tag: tag });
    }
    function section(tagObj, tag) {
      var tagProps = {
        key: 'operation-' + tag,
        tagObj: tagObj,
        tag: tag,
        oas3Selectors: props.oas3Selectors,
        layoutSelectors: props.layoutSelectors,
        layoutActions: props.layoutActions,
        getConfigs: props.getConfigs,
        getComponent: props.getComponent,
        specUrl: props.specSelectors.url(),
      };
      var rows = tagObj.get('operations').map(operation.bind(null, tag)).toArray();
      return h(OperationTag, tagProps, h('div', { className: 'operation-tag-content' }, rows));
    }
    return h('div', null, tagged.map(section).valueSeq().toArray());
  }
  return { components: { operations: operations } };
}

window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [EveryOperation],
    layout: 'BaseLayout',
  });
});
`;
